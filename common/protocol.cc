#include "protocol.h"

#include <iterator>

#include "strict_json.h"

namespace storbed {
namespace {

using nlohmann::json;

template <class... Ts>
struct Overloaded : Ts... {
  using Ts::operator()...;
};
template <class... Ts>
Overloaded(Ts...) -> Overloaded<Ts...>;

json Body(const Message& m) {
  return std::visit(
      Overloaded{
          [](const HelloRequest&) { return json::object(); },
          [](const HelloReply& r) {
            json j{{"agent_version", r.agent_version},
                   {"kernel_release", r.kernel_release},
                   {"devices", r.devices},
                   {"monotonic_ns", r.monotonic_ns},
                   {"modules_loaded", r.modules_loaded},
                   {"os_release",
                    {{"pretty_name", r.os_release.pretty_name},
                     {"version_id", r.os_release.version_id}}}};
            if (r.boot) j["boot"] = *r.boot;
            json rules = json::array();
            for (const auto& q : r.queue_rules)
              rules.push_back({{"file", q.file}, {"line", q.line}, {"text", q.text}});
            j["queue_rules"] = rules;
            j["tuned_profile"] = r.tuned_profile;
            return j;
          },
          [](const PrepareRequest& r) {
            return json{{"target", r.target}, {"cache", ToString(r.cache)}};
          },
          [](const Prepared& r) {
            return json{{"target", r.target}, {"prepare_s", r.prepare_s}, {"steps", r.steps}};
          },
          [](const RunRequest& r) { return json{{"job", r.job}}; },
          [](const ResultReply& r) { return json{{"result", r.result}}; },
          [](const ErrorReply& r) {
            return json{
                {"message", r.message}, {"request_type", r.request_type}, {"raw", r.raw}};
          },
          [](const ShutdownRequest&) { return json::object(); },
          [](const ShutdownAck&) { return json::object(); },
          [](const Heartbeat& h) { return json{{"elapsed_s", h.elapsed_s}}; },
          [](const TraceFetchRequest& r) { return json{{"from", r.from}}; },
          [](const TraceChunkReply& r) { return json{{"chunk", r.chunk}}; },
      },
      m);
}

Message FromBody(const std::string& type, const json& j) {
  if (type == "hello") return HelloRequest{};
  if (type == "hello_reply") {
    HelloReply r;
    r.agent_version = j.at("agent_version").get<std::string>();
    r.kernel_release = j.at("kernel_release").get<std::string>();
    r.devices = j.at("devices").get<std::vector<BlockDeviceInfo>>();
    r.monotonic_ns = WholeNumber<uint64_t>(j.at("monotonic_ns"));
    r.modules_loaded = j.value("modules_loaded", std::vector<std::string>{});
    if (j.contains("boot")) r.boot = j.at("boot").get<GuestBoot>();
    // Absent before foreign images: an older agent's hello still reads.
    const json os = j.value("os_release", json::object());
    r.os_release.pretty_name = os.value("pretty_name", std::string());
    r.os_release.version_id = os.value("version_id", std::string());
    for (const json& q : j.value("queue_rules", json::array()))
      r.queue_rules.push_back({q.at("file").get<std::string>(), WholeNumber<uint32_t>(q.at("line")),
                               q.at("text").get<std::string>()});
    r.tuned_profile = j.value("tuned_profile", std::string());
    return r;
  }
  if (type == "prepare")
    return PrepareRequest{j.at("target").get<std::string>(),
                          ParseCacheState(j.value("cache", std::string("cold")))};
  if (type == "prepared")
    return Prepared{j.at("target").get<std::string>(), j.at("prepare_s").get<double>(),
                    j.value("steps", std::string())};
  if (type == "run") return RunRequest{j.at("job").get<JobSpec>()};
  if (type == "result") return ResultReply{j.at("result").get<JobResult>()};
  if (type == "error")
    return ErrorReply{j.at("message").get<std::string>(), j.value("request_type", std::string()),
                      j.value("raw", std::string())};
  if (type == "shutdown") return ShutdownRequest{};
  if (type == "shutdown_ack") return ShutdownAck{};
  if (type == "heartbeat") return Heartbeat{j.at("elapsed_s").get<double>()};
  if (type == "trace_fetch") return TraceFetchRequest{WholeNumber<size_t>(j.at("from"))};
  if (type == "trace_chunk") return TraceChunkReply{j.at("chunk")};
  throw std::invalid_argument("unknown message type '" + type + "'");
}

}  // namespace

std::string MessageType(const Message& m) {
  static const char* const kNames[] = {"hello",    "hello_reply",  "prepare",  "prepared",
                                       "run",      "result",       "error",    "shutdown",
                                       "shutdown_ack", "heartbeat", "trace_fetch",
                                       "trace_chunk"};
  static_assert(std::size(kNames) == std::variant_size_v<Message>);
  return kNames[m.index()];
}

std::string EncodeMessage(const Message& m) {
  json j = Body(m);
  j["type"] = MessageType(m);
  j["v"] = kProtocolVersion;
  // Replace invalid UTF-8 instead of throwing: error texts may quote raw bytes.
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

Message DecodeMessage(const std::string& line) {
  json j;
  try {
    j = ParseJson(line);
  } catch (const std::invalid_argument& e) {  // nested too deep
    throw ProtocolError(std::string("malformed JSON: ") + e.what(), line);
  } catch (const json::exception& e) {
    throw ProtocolError(std::string("malformed JSON: ") + e.what(), line);
  }
  if (!j.is_object()) throw ProtocolError("message is not a JSON object", line);
  if (!j.contains("type") || !j["type"].is_string())
    throw ProtocolError("message has no string field 'type'", line);
  if (!j.contains("v") || !j["v"].is_number_integer())
    throw ProtocolError("message has no integer field 'v'", line);
  // Compared as a JSON value: a version out of int's range is another version, not an error
  // of its own.
  if (j["v"] != json(kProtocolVersion))
    throw ProtocolError("protocol version " + j["v"].dump() + " is not supported (this side " +
                            "speaks " + std::to_string(kProtocolVersion) + ")",
                        line);
  const std::string type = j["type"].get<std::string>();
  try {
    return FromBody(type, j);
  } catch (const std::exception& e) {
    throw ProtocolError("bad '" + type + "' message: " + e.what(), line);
  }
}

void to_json(nlohmann::json& j, const GuestBoot& b) {
  j = nlohmann::json{{"init_start_s", b.init_start_s},
                     {"modules_s", b.modules_s},
                     {"devices_s", b.devices_s},
                     {"uptime_s", b.uptime_s}};
}

void from_json(const nlohmann::json& j, GuestBoot& b) {
  b.init_start_s = j.at("init_start_s").get<double>();
  b.modules_s = j.at("modules_s").get<double>();
  b.devices_s = j.at("devices_s").get<double>();
  b.uptime_s = j.at("uptime_s").get<double>();
}

void to_json(nlohmann::json& j, const BlockDeviceInfo& d) {
  j = nlohmann::json{{"name", d.name},
                     {"path", d.path},
                     {"size_bytes", d.size_bytes},
                     {"serial", d.serial},
                     {"model", d.model},
                     {"logical_block_size", d.logical_block_size},
                     {"physical_block_size", d.physical_block_size},
                     {"rotational", d.rotational},
                     {"read_ahead_kb", d.read_ahead_kb},
                     {"nr_requests", d.nr_requests},
                     {"max_sectors_kb", d.max_sectors_kb},
                     {"scheduler", d.scheduler},
                     {"nr_hw_queues", d.nr_hw_queues}};
}

void from_json(const nlohmann::json& j, BlockDeviceInfo& d) {
  d.name = j.at("name").get<std::string>();
  d.path = j.at("path").get<std::string>();
  d.size_bytes = WholeNumber<uint64_t>(j.at("size_bytes"));
  d.serial = j.value("serial", std::string());
  d.model = j.value("model", std::string());
  d.logical_block_size = j.value("logical_block_size", 0u);
  d.physical_block_size = j.value("physical_block_size", 0u);
  d.rotational = j.value("rotational", false);
  d.read_ahead_kb = j.value("read_ahead_kb", 0u);
  d.nr_requests = j.value("nr_requests", 0u);
  d.max_sectors_kb = j.value("max_sectors_kb", 0u);
  d.scheduler = j.value("scheduler", std::string());
  d.nr_hw_queues = j.value("nr_hw_queues", 0u);
}

}  // namespace storbed
