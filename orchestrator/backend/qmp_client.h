// A QMP client over QEMU's unix socket: greeting, qmp_capabilities, then one command at a
// time. Asynchronous events arriving between replies are kept, never taken for replies.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include "backend/host_channel.h"
#include "error.h"

namespace storbed {

// QEMU answered a command with {"error": {"class": ..., "desc": ...}}.
class QmpError : public Error {
 public:
  QmpError(const std::string& command, const std::string& error_class, const std::string& desc);
  const std::string& command() const { return command_; }
  const std::string& error_class() const { return class_; }
  const std::string& desc() const { return desc_; }

 private:
  std::string command_, class_, desc_;
};

// A line that is not QMP. raw() is the line as received.
class QmpProtocolError : public Error {
 public:
  QmpProtocolError(const std::string& what, std::string raw)
      : Error(ErrorKind::Host, what), raw_(std::move(raw)) {}
  const std::string& raw() const { return raw_; }

 private:
  std::string raw_;
};

// The connection failed, closed, or no reply came in time.
class QmpConnectionError : public Error {
 public:
  explicit QmpConnectionError(const std::string& what) : Error(ErrorKind::Host, what) {}
};

struct QmpGreeting {
  nlohmann::json qmp;  // the "QMP" object: version, capabilities
};
struct QmpEvent {
  std::string event;
  nlohmann::json data;       // {} when the event has none
  nlohmann::json timestamp;  // {"seconds":..,"microseconds":..}
};
struct QmpReply {
  nlohmann::json id;  // null when the command had none
  bool ok = false;
  nlohmann::json value;  // "return" when ok
  std::string error_class, error_desc;
};
using QmpLine = std::variant<QmpGreeting, QmpEvent, QmpReply>;

// Classifies one line. Throws QmpProtocolError (with the raw line) for anything else.
QmpLine ParseQmpLine(const std::string& line);

// Thread-safe: Execute, TakeEvents and SetCheck may be called from several threads (a
// sampler thread beside the main one); commands run one at a time under a mutex.
class QmpClient {
 public:
  // Connects (retrying until the socket exists), reads the greeting and negotiates
  // capabilities. check() runs between waits (throw from it to abort). Throws
  // QmpConnectionError, QmpProtocolError or whatever check() throws.
  static QmpClient Connect(const std::string& socket_path, Clock::time_point deadline,
                           std::function<void()> check = nullptr);
  // Same over an already connected channel (tests use a socketpair).
  static QmpClient Handshake(LineChannel channel, Clock::time_point deadline,
                             std::function<void()> check = nullptr);

  // Runs one command and returns its "return" value. Throws QmpError for an error reply,
  // QmpProtocolError for a malformed line, QmpConnectionError on EOF or timeout.
  nlohmann::json Execute(const std::string& command, const nlohmann::json& args = {},
                         std::chrono::milliseconds timeout = std::chrono::seconds(10));

  // Events received so far, oldest first (a copy); TakeEvents() empties the list.
  std::vector<QmpEvent> Events() const;
  std::vector<QmpEvent> TakeEvents();
  // "7.2.22" from the greeting.
  std::string QemuVersion() const;
  // Replaces the check() run between waits.
  void SetCheck(std::function<void()> check);

 private:
  QmpClient(LineChannel channel, std::function<void()> check);
  // The next greeting or reply; events on the way are kept in events_.
  QmpLine ReadLine(Clock::time_point deadline, const std::string& waiting_for);

  // Behind a pointer so the client stays movable; held for a whole command exchange.
  std::unique_ptr<std::mutex> mu_ = std::make_unique<std::mutex>();
  LineChannel channel_;
  std::function<void()> check_;
  nlohmann::json greeting_;
  std::vector<QmpEvent> events_;
  uint64_t next_id_ = 1;
};

}  // namespace storbed
