#include "backend/backend.h"

#include <algorithm>

namespace storbed {
namespace {

std::string Section(const std::string& title, const std::string& tail) {
  return "\n--- " + title + " ---\n" + (tail.empty() ? "(empty)\n" : tail);
}

}  // namespace

MachineDiedError::MachineDiedError(const std::string& machine,
                                   const std::string& exit_description,
                                   const std::string& qemu_log_tail,
                                   const std::string& console_tail)
    : std::runtime_error("machine " + machine + ": QEMU " + exit_description +
                         Section("qemu.log (last 20 lines)", qemu_log_tail) +
                         Section("console.log (last 20 lines)", console_tail)),
      exit_description_(exit_description),
      qemu_log_tail_(qemu_log_tail),
      console_tail_(console_tail) {}

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
