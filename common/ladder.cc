#include "ladder.h"

namespace storbed {

void to_json(nlohmann::json& j, const LayerStats& l) {
  j = nlohmann::json{{"layer", l.layer}, {"available", l.available}, {"source", l.source}};
  if (!l.available) {
    j["reason"] = l.reason;
    return;
  }
  j["avg_depth"] = l.avg_depth;
  if (l.has_iops) j["iops"] = l.iops;
  if (l.has_request_size) j["avg_request_bytes"] = l.avg_request_bytes;
  if (l.has_latency) j["mean_latency_us"] = l.mean_latency_us;
  if (!l.notes.empty()) j["notes"] = l.notes;
}

void from_json(const nlohmann::json& j, LayerStats& l) {
  l.layer = j.at("layer").get<std::string>();
  l.available = j.at("available").get<bool>();
  l.source = j.value("source", std::string());
  l.reason = j.value("reason", std::string());
  l.avg_depth = j.value("avg_depth", 0.0);
  l.has_iops = j.contains("iops");
  l.iops = j.value("iops", 0.0);
  l.has_request_size = j.contains("avg_request_bytes");
  l.avg_request_bytes = j.value("avg_request_bytes", 0.0);
  l.has_latency = j.contains("mean_latency_us");
  l.mean_latency_us = j.value("mean_latency_us", 0.0);
  l.notes = j.value("notes", std::vector<std::string>{});
}

void to_json(nlohmann::json& j, const Ladder& l) { j = nlohmann::json{{"layers", l.layers}}; }

void from_json(const nlohmann::json& j, Ladder& l) {
  l.layers = j.at("layers").get<std::vector<LayerStats>>();
}

}  // namespace storbed
