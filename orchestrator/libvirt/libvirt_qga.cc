#include "libvirt/libvirt_qga.h"

#include <libvirt/libvirt-qemu.h>

#include <algorithm>
#include <thread>

#include "libvirt/virt_handles.h"
#include "strict_json.h"

namespace storbed {

nlohmann::json ParseAgentReply(const std::string& command, const std::string& reply) {
  const nlohmann::json j = ParseJsonOrDiscarded(reply);
  if (!j.is_object())
    throw QgaError("the QEMU guest agent's reply to " + command + " is not a JSON object: " +
                   reply);
  if (const auto e = j.find("error"); e != j.end()) {
    if (!e->is_object())
      throw QgaError("the QEMU guest agent's reply to " + command + " has an error that is "
                     "not an object: " + reply);
    throw QgaCommandError(command, e->value("class", std::string("?")),
                          e->value("desc", std::string("(no description)")));
  }
  const auto r = j.find("return");
  if (r == j.end())
    throw QgaError("the QEMU guest agent's reply to " + command + " has neither return nor "
                   "error: " + reply);
  return *r;
}

std::optional<std::string> AgentRefusalIn(const std::string& command,
                                          const std::string& libvirt_message) {
  // libvirt 9.0 qemuAgentCheckError: "unable to execute QEMU agent command '%s': %s", the
  // second part being the error's desc (or its class made readable). The class is lost.
  const std::string marker = "unable to execute QEMU agent command '" + command + "': ";
  const size_t at = libvirt_message.find(marker);
  if (at == std::string::npos) return std::nullopt;
  return libvirt_message.substr(at + marker.size());
}

void LibvirtQga::Sync(Clock::time_point deadline, const std::function<void()>& check,
                      std::chrono::milliseconds retry) {
  std::string last = "not tried";
  while (Clock::now() < deadline) {
    if (check) check();
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    try {
      Execute("guest-ping", {}, std::min<std::chrono::milliseconds>(left, std::chrono::seconds(5)),
              nullptr);
      return;
    } catch (const QgaCommandError&) {
      throw;  // it answered, with a refusal: nothing to wait for
    } catch (const QgaError& e) {
      last = e.what();
    }
    std::this_thread::sleep_for(std::min(retry, std::chrono::duration_cast<std::chrono::milliseconds>(
                                                    std::max(deadline - Clock::now(), Clock::duration(0)))));
  }
  throw QgaError("no answer to guest-ping through libvirt (last: " + last + ")");
}

std::vector<nlohmann::json> SplitFileWrite(const nlohmann::json& arguments,
                                           std::size_t max_base64) {
  const auto buf = arguments.find("buf-b64");
  if (buf == arguments.end() || !buf->is_string() || buf->get_ref<const std::string&>().size() <= max_base64)
    return {arguments};
  const std::string& text = buf->get_ref<const std::string&>();
  const std::size_t step = std::max<std::size_t>(4, max_base64 / 4 * 4);
  std::vector<nlohmann::json> pieces;
  for (std::size_t at = 0; at < text.size(); at += step) {
    nlohmann::json piece = arguments;
    piece["buf-b64"] = text.substr(at, step);
    // "count" would apply to the whole buffer; each piece is written whole.
    piece.erase("count");
    pieces.push_back(std::move(piece));
  }
  return pieces;
}

nlohmann::json LibvirtQga::Execute(const std::string& command, const nlohmann::json& arguments,
                                   std::chrono::milliseconds timeout,
                                   const std::function<void()>& check) {
  if (check) check();
  if (command != "guest-file-write") return Command(command, arguments, timeout);
  const auto deadline = Clock::now() + timeout;
  nlohmann::json total = {{"count", 0}, {"eof", false}};
  for (const nlohmann::json& piece : SplitFileWrite(arguments, kMaxAgentWriteBase64)) {
    if (check) check();
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    const nlohmann::json written = Command(command, piece, std::max(left, std::chrono::milliseconds(1)));
    total["count"] = total["count"].get<int64_t>() + written.value("count", int64_t{0});
    total["eof"] = written.value("eof", false);
  }
  return total;
}

nlohmann::json LibvirtQga::Command(const std::string& command, const nlohmann::json& arguments,
                                   std::chrono::milliseconds timeout) {
  nlohmann::json request = {{"execute", command}};
  if (!arguments.is_null() && !arguments.empty()) request["arguments"] = arguments;
  // Whole seconds; 0 would mean "do not wait" to libvirt.
  const int seconds = std::max<int>(1, static_cast<int>((timeout.count() + 999) / 1000));
  char* reply = virDomainQemuAgentCommand(domain_.get(), request.dump().c_str(), seconds, 0);
  if (reply == nullptr) {
    const LastLibvirtError err = TakeLastLibvirtError();
    if (auto desc = AgentRefusalIn(command, err.message))
      throw QgaCommandError(command, "class not reported by libvirt", *desc);
    throw QgaError("libvirt at " + uri_ + ": QEMU guest agent command " + command +
                   " in domain " + domain_name_ + ": " + err.message);
  }
  return ParseAgentReply(command, TakeLibvirtString(reply));
}

}  // namespace storbed
