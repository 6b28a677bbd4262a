#include "results/run_record.h"

#include <stdexcept>

namespace storbed {

std::string ToString(RunStatus s) {
  switch (s) {
    case RunStatus::Ok: return "ok";
    case RunStatus::Failed: return "failed";
    case RunStatus::Skipped: return "skipped";
    case RunStatus::Warmup: return "warmup";
  }
  return "?";
}

void to_json(nlohmann::json& j, const RunRecord& r) {
  j = nlohmann::json{{"run_id", r.run_id},   {"target", r.target},
                     {"accel", r.accel},     {"machine", r.machine},
                     {"device", r.device},   {"host_name", r.host_name},
                     {"backend", r.backend}, {"job", r.job},
                     {"status", ToString(r.status)},
                     {"error", r.error},     {"console_log", r.console_log},
                     {"wall_s", r.wall_s}};
  j["result"] = r.result ? nlohmann::json(*r.result) : nlohmann::json(nullptr);
  j["ladder"] = r.ladder ? nlohmann::json(*r.ladder) : nlohmann::json(nullptr);
  j["durability"] = r.durability ? nlohmann::json(*r.durability) : nlohmann::json(nullptr);
  if (r.io_trace) j["io_trace"] = *r.io_trace;
  j["host"] = r.host;
  j["timelines_file"] = r.timelines_file;
  j["params"] = r.params;
  j["schema_version"] = kResultsSchemaVersion;
}

void from_json(const nlohmann::json& j, RunRecord& r) {
  const int version = j.value("schema_version", 1);
  if (version > kResultsSchemaVersion)
    throw std::invalid_argument("a record of schema_version " + std::to_string(version) +
                                " (a newer storbed); this one reads up to " +
                                std::to_string(kResultsSchemaVersion));
  r.run_id = j.at("run_id").get<std::string>();
  r.target = j.at("target").get<std::string>();
  r.accel = j.at("accel").get<std::string>();
  r.machine = j.value("machine", std::string());
  r.device = j.value("device", std::string());
  r.host_name = j.value("host_name", std::string());  // results before hosts: ""
  r.backend = j.value("backend", std::string());
  r.job = j.at("job").get<JobSpec>();
  const std::string status = j.at("status").get<std::string>();
  r.status = status == "ok" ? RunStatus::Ok
             : status == "skipped" ? RunStatus::Skipped
             : status == "warmup"  ? RunStatus::Warmup
                                   : RunStatus::Failed;
  r.error = j.value("error", std::string());
  if (j.contains("result") && !j["result"].is_null()) r.result = j["result"].get<JobResult>();
  r.console_log = j.value("console_log", std::string());
  r.wall_s = j.value("wall_s", 0.0);
  if (j.contains("ladder") && !j["ladder"].is_null()) r.ladder = j["ladder"].get<Ladder>();
  if (j.contains("durability") && !j["durability"].is_null())
    r.durability = j["durability"].get<Durability>();
  if (j.contains("io_trace") && !j["io_trace"].is_null())
    r.io_trace = j["io_trace"].get<IoTraceFigures>();
  r.host = j.value("host", nlohmann::json::object());
  r.timelines_file = j.value("timelines_file", std::string());
  if (j.contains("params") && !j["params"].is_null()) r.params = j["params"];
}

}  // namespace storbed
