// The QEMU guest agent of a libvirt domain, through libvirt's own agent connection
// (virDomainQemuAgentCommand on the domain's org.qemu.guest_agent.0 channel), so
// backend/qga_push.h pushes storbed-agent into a foreign guest under libvirt too.
#pragma once

#include <libvirt/libvirt.h>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "backend/qga_client.h"

namespace storbed {

// The "return" value of qemu-ga's reply text as libvirt hands it back. Throws
// QgaCommandError for {"error": {"class", "desc"}}, QgaError for text that is not such a reply.
nlohmann::json ParseAgentReply(const std::string& command, const std::string& reply);

// The agent's own description when libvirt's error message reports that qemu-ga refused
// `command` ("unable to execute QEMU agent command 'CMD': DESC"); nullopt for any other
// failure (agent not connected, timed out, libvirtd gone).
std::optional<std::string> AgentRefusalIn(const std::string& command,
                                          const std::string& libvirt_message);

// The most base64 one guest-file-write through libvirt carries. libvirt 9.0 writes agent
// commands to its non-blocking socket with safewrite(): when the socket fills mid-command
// (around 200 KiB, the unix socket's send buffer) the bytes already written are not counted
// and are sent again, and qemu-ga sees garbage ("JSON parse error", or no reply at all).
// Measured here: 160 KiB of data per write passed, 192 KiB failed; this stays far below.
inline constexpr std::size_t kMaxAgentWriteBase64 = 64 * 1024;

// guest-file-write's arguments cut into writes of at most `max_base64` characters (a
// multiple of 4, so each piece is base64 of its own), in order; the arguments themselves
// when they are small enough.
std::vector<nlohmann::json> SplitFileWrite(const nlohmann::json& arguments, std::size_t max_base64);

class LibvirtQga : public QgaChannel {
 public:
  LibvirtQga(std::shared_ptr<virDomain> domain, std::string uri, std::string domain_name)
      : domain_(std::move(domain)), uri_(std::move(uri)), domain_name_(std::move(domain_name)) {}

  // guest-ping every `retry` until it answers (libvirt does guest-sync itself and says
  // "QEMU guest agent is not connected" until qemu-ga opens its port). Throws QgaError with
  // libvirt's last message at the deadline.
  void Sync(Clock::time_point deadline, const std::function<void()>& check,
            std::chrono::milliseconds retry) override;

  // One command. libvirt's agent calls cannot be interrupted: `check` runs before it, and
  // `timeout` (whole seconds, at least 1) is libvirt's own. A guest-file-write larger than
  // kMaxAgentWriteBase64 goes as several (SplitFileWrite), answered with their total count.
  nlohmann::json Execute(const std::string& command, const nlohmann::json& arguments,
                         std::chrono::milliseconds timeout,
                         const std::function<void()>& check) override;

 private:
  nlohmann::json Command(const std::string& command, const nlohmann::json& arguments,
                         std::chrono::milliseconds timeout);

  std::shared_ptr<virDomain> domain_;
  std::string uri_, domain_name_;
};

}  // namespace storbed
