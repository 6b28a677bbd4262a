// The host end of the agent protocol (common/protocol.h): one request, one reply, over the
// virtio-serial unix socket of a VM or a pipe pair to a local agent.
#pragma once

#include <chrono>
#include <functional>
#include <stdexcept>
#include <string>

#include "backend/host_channel.h"
#include "error.h"
#include "protocol.h"

namespace storbed {

// The link broke: connect failed, the agent closed it, a write failed, or the link was
// used again after a timeout.
class AgentLinkError : public Error {
 public:
  explicit AgentLinkError(const std::string& what) : Error(ErrorKind::Host, what) {}
};

// No reply in time. Names the request type and the timeout.
class AgentTimeoutError : public Error {
 public:
  AgentTimeoutError(const std::string& request_type, std::chrono::milliseconds timeout);
  const std::string& request_type() const { return request_type_; }
  std::chrono::milliseconds timeout() const { return timeout_; }

 private:
  std::string request_type_;
  std::chrono::milliseconds timeout_;
};

// The agent sent nothing, not even a heartbeat (protocol.h), for the link's silence
// limit while it was answering: the guest or its QEMU hangs. The bare-metal agent's
// watchdog (execute/bare_metal_target.cc) throws it too, with its own `who` and `cause`.
class AgentSilentError : public Error {
 public:
  AgentSilentError(const std::string& request_type, std::chrono::milliseconds silence,
                   int heartbeats_before);
  // "<who> sent nothing for 12 s while <doing> (...): <cause>".
  AgentSilentError(const std::string& request_type, std::chrono::milliseconds silence,
                   int heartbeats_before, const std::string& who, const std::string& doing,
                   const std::string& cause);
  const std::string& request_type() const { return request_type_; }

 private:
  std::string request_type_;
};

// How long a link with heartbeats waits without a line before it calls the agent hung:
// six missed heartbeats, so a busy TCG guest is not taken for a hung one, yet a hang is
// named within 15 s of its start.
inline constexpr std::chrono::milliseconds kAgentSilenceLimit{12000};

// Sees every raw line: dir is "out" (host to agent) or "in"; line has no '\n'.
using TranscriptHook = std::function<void(const std::string& dir, const std::string& line)>;

class AgentLink {
 public:
  // Connects to QEMU's agent chardev socket, retrying until it exists (check() runs between
  // attempts and may throw). Throws AgentLinkError at the deadline.
  static AgentLink ConnectUnix(const std::string& path, Clock::time_point deadline,
                               std::function<void()> check);
  // A connected socket (e.g. one end of a socketpair).
  static AgentLink FromSocket(UniqueFd fd, std::string peer);
  // A local agent's stdout (read_fd) and stdin (write_fd).
  static AgentLink FromPipes(UniqueFd read_fd, UniqueFd write_fd, std::string peer);

  AgentLink(AgentLink&&) = default;
  AgentLink& operator=(AgentLink&&) = default;

  // Sends `request` and returns the agent's reply, ErrorReply included (callers decide).
  // Polls in <=100 ms slices, running check() in between (it throws if QEMU died or on
  // Ctrl-C). Heartbeats are read and dropped; with a silence limit set, a gap longer than
  // it between lines throws AgentSilentError. Throws AgentTimeoutError, AgentLinkError
  // ("agent connection closed"), or
  // ProtocolError with the raw line for an undecodable or request-typed line. After a
  // timeout the link refuses further calls: a late reply would answer the wrong request.
  Message Call(const Message& request, std::chrono::milliseconds timeout,
               const std::function<void()>& check);

  void SetTranscript(TranscriptHook hook) { transcript_ = std::move(hook); }
  // Set once the agent has said hello (it sends heartbeats from then on); zero: none.
  void SetSilenceLimit(std::chrono::milliseconds limit) { silence_limit_ = limit; }
  const std::string& peer() const { return channel_.peer(); }

 private:
  explicit AgentLink(LineChannel channel) : channel_(std::move(channel)) {}
  void Record(const char* dir, const std::string& line);

  LineChannel channel_;
  TranscriptHook transcript_;
  bool poisoned_ = false;
  std::chrono::milliseconds silence_limit_{0};
};

// True for the message types only the agent sends.
bool IsReplyType(const Message& m);

}  // namespace storbed
