#include "backend/agent_link.h"

#include <cstdio>

namespace storbed {
namespace {

// "12 s", or "0.3 s" for a limit under a second (tests).
std::string SecondsText(std::chrono::milliseconds ms) {
  if (ms.count() % 1000 == 0) return std::to_string(ms.count() / 1000) + " s";
  char text[32];
  std::snprintf(text, sizeof text, "%.1f s", ms.count() / 1000.0);
  return text;
}

}  // namespace

AgentTimeoutError::AgentTimeoutError(const std::string& request_type,
                                     std::chrono::milliseconds timeout)
    : Error(ErrorKind::Host, "the agent did not answer " + request_type + " within " +
                                 std::to_string(timeout.count()) + " ms"),
      request_type_(request_type),
      timeout_(timeout) {}

AgentSilentError::AgentSilentError(const std::string& request_type,
                                   std::chrono::milliseconds silence, int heartbeats_before)
    : AgentSilentError(request_type, silence, heartbeats_before, "the agent",
                       "answering " + request_type, "the guest or its QEMU hangs") {}

AgentSilentError::AgentSilentError(const std::string& request_type,
                                   std::chrono::milliseconds silence, int heartbeats_before,
                                   const std::string& who, const std::string& doing,
                                   const std::string& cause)
    : Error(ErrorKind::Host, who + " sent nothing for " + SecondsText(silence) + " while " + doing +
                                 " (it sends a heartbeat every " + SecondsText(kHeartbeatPeriod) +
                                 "; " + std::to_string(heartbeats_before) +
                                 " came before the silence): " + cause),
      request_type_(request_type) {}

bool IsReplyType(const Message& m) {
  return std::holds_alternative<HelloReply>(m) || std::holds_alternative<Prepared>(m) ||
         std::holds_alternative<ResultReply>(m) || std::holds_alternative<ErrorReply>(m) ||
         std::holds_alternative<ShutdownAck>(m) || std::holds_alternative<TraceChunkReply>(m);
}

AgentLink AgentLink::ConnectUnix(const std::string& path, Clock::time_point deadline,
                                 std::function<void()> check) {
  try {
    return FromSocket(ConnectUnixSocket(path, deadline, check), "agent socket " + path);
  } catch (const ChannelError& e) {
    throw AgentLinkError(std::string("cannot connect to the agent: ") + e.what());
  }
}

AgentLink AgentLink::FromSocket(UniqueFd fd, std::string peer) {
  return AgentLink(LineChannel(std::move(fd), std::move(peer), HostChannelOptions()));
}

AgentLink AgentLink::FromPipes(UniqueFd read_fd, UniqueFd write_fd, std::string peer) {
  return AgentLink(
      LineChannel(std::move(read_fd), std::move(write_fd), std::move(peer), HostChannelOptions()));
}

void AgentLink::Record(const char* dir, const std::string& line) {
  if (transcript_) transcript_(dir, line);
}

Message AgentLink::Call(const Message& request, std::chrono::milliseconds timeout,
                        const std::function<void()>& check) {
  const std::string type = MessageType(request);
  if (poisoned_) {
    throw AgentLinkError("agent link to " + peer() + " unusable: an earlier request timed out");
  }
  const auto deadline = Clock::now() + timeout;
  const std::string out = EncodeMessage(request);
  Record("out", out);
  std::string line;
  try {
    channel_.WriteLine(out, deadline, check);
  } catch (const ChannelError& e) {
    throw AgentLinkError("agent link to " + peer() + " failed during " + type + ": " + e.what());
  }
  auto last_heard = Clock::now();
  int heartbeats = 0;
  for (;;) {
    const bool silence_first =
        silence_limit_.count() > 0 && last_heard + silence_limit_ < deadline;
    LineChannel::ReadStatus st;
    try {
      st = channel_.ReadLine(&line, silence_first ? last_heard + silence_limit_ : deadline, check);
    } catch (const ChannelError& e) {
      throw AgentLinkError("agent link to " + peer() + " failed during " + type + ": " + e.what());
    }
    if (st == LineChannel::ReadStatus::kTimeout) {
      poisoned_ = true;
      if (silence_first) throw AgentSilentError(type, silence_limit_, heartbeats);
      throw AgentTimeoutError(type, timeout);
    }
    if (st == LineChannel::ReadStatus::kEof) {
      throw AgentLinkError("agent connection closed while waiting for the reply to " + type +
                           " (" + peer() + ")");
    }
    last_heard = Clock::now();
    Message reply;
    try {
      reply = DecodeMessage(line);  // ProtocolError keeps the raw line
    } catch (const ProtocolError&) {
      Record("in", line);
      throw;
    }
    if (std::holds_alternative<Heartbeat>(reply)) {
      ++heartbeats;
      continue;
    }
    Record("in", line);
    if (!IsReplyType(reply)) {
      throw ProtocolError("the agent sent a " + MessageType(reply) +
                              " request instead of a reply to " + type,
                          line);
    }
    return reply;
  }
}

}  // namespace storbed
