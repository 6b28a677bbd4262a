#include "backend/agent_link.h"

namespace storbed {

AgentTimeoutError::AgentTimeoutError(const std::string& request_type,
                                     std::chrono::milliseconds timeout)
    : std::runtime_error("the agent did not answer " + request_type + " within " +
                         std::to_string(timeout.count()) + " ms"),
      request_type_(request_type),
      timeout_(timeout) {}

bool IsReplyType(const Message& m) {
  return std::holds_alternative<HelloReply>(m) || std::holds_alternative<Prepared>(m) ||
         std::holds_alternative<ResultReply>(m) || std::holds_alternative<ErrorReply>(m) ||
         std::holds_alternative<ShutdownAck>(m);
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
  LineChannel::ReadStatus st;
  try {
    channel_.WriteLine(out, deadline, check);
    st = channel_.ReadLine(&line, deadline, check);
  } catch (const ChannelError& e) {
    throw AgentLinkError("agent link to " + peer() + " failed during " + type + ": " + e.what());
  }
  if (st == LineChannel::ReadStatus::kTimeout) {
    poisoned_ = true;
    throw AgentTimeoutError(type, timeout);
  }
  if (st == LineChannel::ReadStatus::kEof) {
    throw AgentLinkError("agent connection closed while waiting for the reply to " + type +
                         " (" + peer() + ")");
  }
  Record("in", line);
  Message reply = DecodeMessage(line);  // ProtocolError keeps the raw line
  if (!IsReplyType(reply)) {
    throw ProtocolError("the agent sent a " + MessageType(reply) + " request instead of a reply to " +
                            type,
                        line);
  }
  return reply;
}

}  // namespace storbed
