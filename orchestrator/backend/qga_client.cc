#include "backend/qga_client.h"

#include <random>

#include "strict_json.h"

namespace storbed {

QgaCommandError::QgaCommandError(const std::string& command, const std::string& error_class,
                                 const std::string& desc)
    : QgaError("the QEMU guest agent refused " + command + ": " + desc + " (" + error_class + ")"),
      class_(error_class) {}

QgaClient QgaClient::Connect(const std::string& socket_path, Clock::time_point deadline,
                             const std::function<void()>& check) {
  try {
    return QgaClient(LineChannel(ConnectUnixSocket(socket_path, deadline, check),
                                 "QEMU guest agent socket " + socket_path, HostChannelOptions()));
  } catch (const ChannelError& e) {
    throw QgaError(std::string("cannot connect to the QEMU guest agent channel: ") + e.what());
  }
}

std::optional<nlohmann::json> QgaClient::ReadObject(Clock::time_point deadline,
                                                    const std::function<void()>& check) {
  for (;;) {
    std::string line;
    LineChannel::ReadStatus status;
    try {
      status = channel_.ReadLine(&line, deadline, check);
    } catch (const ChannelError& e) {
      throw QgaError(e.what());
    }
    if (status == LineChannel::ReadStatus::kTimeout) return std::nullopt;
    if (status == LineChannel::ReadStatus::kEof)
      throw QgaError("QEMU closed the guest agent channel " + channel_.peer());
    // guest-sync-delimited puts 0xff before its reply, so the host can drop what came before.
    const size_t start = line.find_first_not_of("\xff \t");
    if (start == std::string::npos) continue;
    nlohmann::json j = ParseJsonOrDiscarded(line.substr(start));
    if (j.is_object()) return j;
    // Half a reply from before a qemu-ga restart: skip it, the next line is whole.
  }
}

void QgaClient::Sync(Clock::time_point deadline, const std::function<void()>& check,
                     std::chrono::milliseconds retry) {
  if (next_sync_id_ == 0) next_sync_id_ = std::random_device{}() % 1000000000 + 1;
  while (Clock::now() < deadline) {
    const uint64_t id = next_sync_id_++;
    const nlohmann::json request = {{"execute", "guest-sync-delimited"},
                                    {"arguments", {{"id", id}}}};
    try {
      // A lone 0xff makes qemu-ga drop any half-parsed input before the request.
      channel_.WriteLine("\xff" + request.dump(), deadline, check);
    } catch (const ChannelError& e) {
      throw QgaError(e.what());
    }
    const auto try_until = std::min(deadline, Clock::now() + retry);
    while (auto reply = ReadObject(try_until, check)) {
      if (reply->value("return", nlohmann::json()) == nlohmann::json(id)) return;
    }
  }
  throw QgaError("no answer to guest-sync-delimited");
}

nlohmann::json QgaClient::Execute(const std::string& command, const nlohmann::json& arguments,
                                  std::chrono::milliseconds timeout,
                                  const std::function<void()>& check) {
  const auto deadline = Clock::now() + timeout;
  nlohmann::json request = {{"execute", command}};
  if (!arguments.is_null() && !arguments.empty()) request["arguments"] = arguments;
  try {
    channel_.WriteLine(request.dump(), deadline, check);
  } catch (const ChannelError& e) {
    throw QgaError(e.what());
  }
  while (auto reply = ReadObject(deadline, check)) {
    if (reply->contains("error")) {
      const nlohmann::json& e = (*reply)["error"];
      throw QgaCommandError(command, e.value("class", std::string("?")),
                            e.value("desc", std::string("(no description)")));
    }
    // qemu-ga answers in order and Sync() waited for the answer to its last request, so
    // the next answer is this command's.
    if (reply->contains("return")) return (*reply)["return"];
  }
  throw QgaError("no answer to " + command + " within " + std::to_string(timeout.count()) +
                 " ms");
}

}  // namespace storbed
