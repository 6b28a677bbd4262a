#include "backend/backend.h"

#include <algorithm>

namespace storbed {
namespace {

std::string Section(const std::string& title, const std::string& tail) {
  return "\n--- " + title + " ---\n" + (tail.empty() ? "(empty)\n" : tail);
}

}  // namespace

std::string KernelPanicLine(const std::string& console_text) {
  const std::string marker = "Kernel panic - not syncing";
  const size_t at = console_text.find(marker);
  if (at == std::string::npos) return "";
  size_t end = console_text.find('\n', at);
  if (end == std::string::npos) end = console_text.size();
  std::string line = console_text.substr(at, end - at);
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
  return line;
}

MachineDiedError::MachineDiedError(const std::string& machine, const std::string& exit_description,
                                   const std::string& qemu_log_tail,
                                   const std::string& console_tail)
    : Error(ErrorKind::Host,
            "machine " + machine + ": " +
                (KernelPanicLine(console_tail).empty()
                     ? ""
                     : "the guest kernel panicked (" + KernelPanicLine(console_tail) + "), then ") +
                "QEMU " + exit_description + Section("qemu.log (last 20 lines)", qemu_log_tail) +
                Section("console.log (last 20 lines)", console_tail)),
      exit_description_(exit_description),
      qemu_log_tail_(qemu_log_tail),
      console_tail_(console_tail),
      panic_line_(KernelPanicLine(console_tail)) {}

HelloReply AwaitAgentHello(AgentLink& agent, const std::string& machine,
                           Clock::time_point deadline, const std::function<void()>& check) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
  Message reply = agent.Call(HelloRequest{}, std::max(left, std::chrono::milliseconds(1)), check);
  if (auto* err = std::get_if<ErrorReply>(&reply)) {
    throw MachineStartError("machine " + machine + ": the agent answered hello with an error: " +
                            err->message);
  }
  if (!std::holds_alternative<HelloReply>(reply)) {
    throw MachineStartError("machine " + machine + ": the agent answered hello with " +
                            MessageType(reply));
  }
  return std::get<HelloReply>(std::move(reply));
}

}  // namespace storbed
