#include "backend/qmp_client.h"

#include "strict_json.h"

namespace storbed {

using nlohmann::json;

QmpError::QmpError(const std::string& command, const std::string& error_class,
                   const std::string& desc)
    : Error(ErrorKind::Host, "QMP command " + command + " failed: " + error_class + ": " + desc),
      command_(command),
      class_(error_class),
      desc_(desc) {}

QmpLine ParseQmpLine(const std::string& line) {
  json j = ParseJsonOrDiscarded(line);
  if (j.is_discarded() || !j.is_object()) {
    throw QmpProtocolError("QMP sent a line that is not a JSON object: " + line, line);
  }
  try {
    if (j.contains("QMP")) return QmpGreeting{j.at("QMP")};
    if (j.contains("event")) {
      return QmpEvent{j.at("event").get<std::string>(), j.value("data", json::object()),
                      j.value("timestamp", json::object())};
    }
    QmpReply r;
    r.id = j.value("id", json());
    if (j.contains("return")) {
      r.ok = true;
      r.value = j.at("return");
      return r;
    }
    if (j.contains("error")) {
      const json& e = j.at("error");
      r.error_class = e.at("class").get<std::string>();
      r.error_desc = e.at("desc").get<std::string>();
      return r;
    }
  } catch (const json::exception& e) {
    throw QmpProtocolError("QMP line has a field of the wrong type (" + std::string(e.what()) +
                               "): " + line,
                           line);
  }
  throw QmpProtocolError("QMP line is neither greeting, event nor reply: " + line, line);
}

QmpClient::QmpClient(LineChannel channel, std::function<void()> check)
    : channel_(std::move(channel)), check_(std::move(check)) {}

QmpClient QmpClient::Connect(const std::string& socket_path, Clock::time_point deadline,
                             std::function<void()> check) {
  UniqueFd fd;
  try {
    fd = ConnectUnixSocket(socket_path, deadline, check);
  } catch (const ChannelError& e) {
    throw QmpConnectionError(std::string("cannot connect to QMP: ") + e.what());
  }
  return Handshake(LineChannel(std::move(fd), "QMP " + socket_path, HostChannelOptions()), deadline,
                   std::move(check));
}

QmpClient QmpClient::Handshake(LineChannel channel, Clock::time_point deadline,
                               std::function<void()> check) {
  QmpClient c(std::move(channel), std::move(check));
  QmpLine first = c.ReadLine(deadline, "the QMP greeting");
  if (!std::holds_alternative<QmpGreeting>(first)) {
    // What came instead, so a failure says whose socket this was.
    const auto& reply = std::get<QmpReply>(first);
    throw QmpConnectionError(
        "QMP did not start with a greeting on " + c.channel_.peer() + " (first came a reply: " +
        (reply.ok ? reply.value.dump() : reply.error_class + ": " + reply.error_desc) + ")");
  }
  c.greeting_ = std::get<QmpGreeting>(first).qmp;
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
  c.Execute("qmp_capabilities", {}, std::max(left, std::chrono::milliseconds(1)));
  return c;
}

// Events are kept wherever they come, before the greeting too: QEMU 7.2 sent RESUME
// first to a client that connected as a `-machine none` QEMU started (CI, twice in a
// row), and libvirt's monitor reads them the same way.
QmpLine QmpClient::ReadLine(Clock::time_point deadline, const std::string& waiting_for) {
  for (;;) {
    std::string line;
    LineChannel::ReadStatus st;
    try {
      st = channel_.ReadLine(&line, deadline, check_);
    } catch (const ChannelError& e) {
      throw QmpConnectionError(e.what());
    }
    if (st == LineChannel::ReadStatus::kEof) {
      throw QmpConnectionError(channel_.peer() + " closed while waiting for " + waiting_for);
    }
    if (st == LineChannel::ReadStatus::kTimeout) {
      throw QmpConnectionError("no " + waiting_for + " from " + channel_.peer() + " in time");
    }
    QmpLine parsed = ParseQmpLine(line);
    auto* ev = std::get_if<QmpEvent>(&parsed);
    if (ev == nullptr) return parsed;
    events_.push_back(std::move(*ev));
  }
}

json QmpClient::Execute(const std::string& command, const json& args,
                        std::chrono::milliseconds timeout) {
  std::lock_guard<std::mutex> lock(*mu_);
  const auto deadline = Clock::now() + timeout;
  const uint64_t id = next_id_++;
  json request = {{"execute", command}, {"id", id}};
  if (!args.is_null() && !args.empty()) request["arguments"] = args;
  try {
    channel_.WriteLine(request.dump(), deadline, check_);
  } catch (const ChannelError& e) {
    throw QmpConnectionError(e.what());
  }
  const std::string waiting_for = "reply to " + command;
  for (;;) {
    QmpLine line = ReadLine(deadline, waiting_for);
    auto* reply = std::get_if<QmpReply>(&line);
    if (reply == nullptr) {
      throw QmpProtocolError("QMP sent a second greeting while waiting for " + waiting_for,
                             "");
    }
    // A late reply to an earlier command that timed out: not ours. No id at all means
    // QEMU could not parse our request, which is ours.
    if (!reply->id.is_null() && reply->id != json(id)) continue;
    if (!reply->ok) throw QmpError(command, reply->error_class, reply->error_desc);
    return reply->value;
  }
}

std::vector<QmpEvent> QmpClient::Events() const {
  std::lock_guard<std::mutex> lock(*mu_);
  return events_;
}

void QmpClient::SetCheck(std::function<void()> check) {
  std::lock_guard<std::mutex> lock(*mu_);
  check_ = std::move(check);
}

std::vector<QmpEvent> QmpClient::TakeEvents() {
  std::lock_guard<std::mutex> lock(*mu_);
  std::vector<QmpEvent> out;
  out.swap(events_);
  return out;
}

std::string QmpClient::QemuVersion() const {
  const json& q = greeting_.value("version", json::object()).value("qemu", json::object());
  if (!q.contains("major")) return "unknown";
  return std::to_string(q.value("major", 0)) + "." + std::to_string(q.value("minor", 0)) + "." +
         std::to_string(q.value("micro", 0));
}

}  // namespace storbed
