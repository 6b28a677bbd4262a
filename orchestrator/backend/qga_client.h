// A client of the QEMU guest agent (qemu-ga) in a foreign guest, over the unix socket of
// the org.qemu.guest_agent.0 virtio-serial port. QGA speaks QMP-style JSON without a
// greeting; what the host sends before qemu-ga opens its port may be dropped or answered
// late, so Sync() uses guest-sync-delimited ids to find the reply that is current.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>

#include "backend/host_channel.h"
#include "error.h"

namespace storbed {

// The QGA socket failed or closed, or no answer came in time.
class QgaError : public Error {
 public:
  explicit QgaError(const std::string& what) : Error(ErrorKind::Host, what) {}
};

// qemu-ga answered a command with {"error": {"class", "desc"}}.
class QgaCommandError : public QgaError {
 public:
  QgaCommandError(const std::string& command, const std::string& error_class,
                  const std::string& desc);
  const std::string& error_class() const { return class_; }

 private:
  std::string class_;
};

// Any way of talking to a guest's qemu-ga: storbed's own socket (QgaClient) or libvirt's
// agent channel (virDomainQemuAgentCommand), so the push works under both backends.
class QgaChannel {
 public:
  virtual ~QgaChannel() = default;
  // Waits until qemu-ga answers (retrying `retry` apart). Throws QgaError at the deadline.
  virtual void Sync(Clock::time_point deadline, const std::function<void()>& check,
                    std::chrono::milliseconds retry) = 0;
  // One command after Sync(); returns its "return" value. Throws QgaCommandError when
  // qemu-ga refuses it, QgaError when the channel fails or no answer comes in time.
  virtual nlohmann::json Execute(const std::string& command, const nlohmann::json& arguments,
                                 std::chrono::milliseconds timeout,
                                 const std::function<void()>& check) = 0;
};

class QgaClient : public QgaChannel {
 public:
  // Connects to QEMU's end of the channel (retrying until QEMU made the socket).
  static QgaClient Connect(const std::string& socket_path, Clock::time_point deadline,
                           const std::function<void()>& check);
  explicit QgaClient(LineChannel channel) : channel_(std::move(channel)) {}

  // Repeats guest-sync-delimited (each try `retry` apart) until qemu-ga answers the latest
  // id. Throws QgaError when the deadline passes first.
  void Sync(Clock::time_point deadline, const std::function<void()>& check,
            std::chrono::milliseconds retry) override;

  // One command, after Sync(); returns its "return" value. Throws QgaCommandError or
  // QgaError (closed, timed out).
  nlohmann::json Execute(const std::string& command, const nlohmann::json& arguments,
                         std::chrono::milliseconds timeout,
                         const std::function<void()>& check) override;

 private:
  // The next JSON object from qemu-ga, its 0xff delimiter removed; nullopt at the deadline.
  std::optional<nlohmann::json> ReadObject(Clock::time_point deadline,
                                           const std::function<void()>& check);

  LineChannel channel_;
  uint64_t next_sync_id_ = 0;
};

}  // namespace storbed
