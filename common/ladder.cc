#include "ladder.h"

namespace storbed {

double InflightDistribution::ShareAbove(double n) const {
  double above = 0;
  for (size_t i = 0; i < share.size(); ++i)
    if (static_cast<double>(i) > n) above += share[i];
  return above;
}

void to_json(nlohmann::json& j, const InflightDistribution& d) {
  j = nlohmann::json{{"exact", d.exact}, {"samples", d.samples}, {"p50", d.p50},
                     {"p99", d.p99},     {"max", d.max},         {"share", d.share}};
}

void from_json(const nlohmann::json& j, InflightDistribution& d) {
  d.available = true;
  d.exact = j.value("exact", false);
  d.samples = j.value("samples", uint64_t{0});
  d.p50 = j.value("p50", 0.0);
  d.p99 = j.value("p99", 0.0);
  d.max = j.value("max", 0.0);
  d.share = j.value("share", std::vector<double>{});
}

void to_json(nlohmann::json& j, const LayerLimit& l) {
  j = nlohmann::json{{"layer", l.layer}, {"cause", l.cause}, {"value", l.value}};
}

void from_json(const nlohmann::json& j, LayerLimit& l) {
  l.layer = j.at("layer").get<std::string>();
  l.cause = j.at("cause").get<std::string>();
  l.value = j.at("value").get<double>();
}

namespace {

// Results written before bounds had a field of their own carried the diskstats resolution
// ("diskstats counters over the IO phase, 1 ms resolution") and the counters' span
// ("counters 3.101 s apart around the 3.027 s window") in depth_ci95: bounds, not 95%
// intervals.
bool IsOldBound(const std::string& basis) {
  return basis.find("resolution") != std::string::npos ||
         (basis.rfind("counters ", 0) == 0 && basis.find(" apart") != std::string::npos);
}

void ReadDepthUncertainty(const nlohmann::json& j, LayerStats& l) {
  const std::string basis = j.value("interval_basis", std::string());
  if (j.contains("depth_ci95") && IsOldBound(basis)) {
    l.has_depth_bound = true;
    l.depth_bound = j.at("depth_ci95").get<double>();
    l.bound_basis = basis;
  } else if (j.contains("depth_ci95")) {
    l.has_depth_interval = true;
    l.depth_ci95 = j.at("depth_ci95").get<double>();
    l.interval_basis = basis;
    l.depth_samples = j.value("depth_samples", uint64_t{0});
  }
  if (j.contains("depth_bound")) {
    l.has_depth_bound = true;
    l.depth_bound = j.at("depth_bound").get<double>();
    l.bound_basis = j.value("bound_basis", std::string());
  }
  l.interval_refused = j.value("interval_refused", std::string());
  if (!l.interval_refused.empty()) l.depth_samples = j.value("depth_samples", uint64_t{0});
}

}  // namespace

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
  if (l.has_depth_interval) {
    j["depth_ci95"] = l.depth_ci95;
    j["interval_basis"] = l.interval_basis;
  }
  if (l.has_depth_bound) {
    j["depth_bound"] = l.depth_bound;
    j["bound_basis"] = l.bound_basis;
  }
  if (!l.interval_refused.empty()) j["interval_refused"] = l.interval_refused;
  if (l.has_depth_interval || !l.interval_refused.empty()) j["depth_samples"] = l.depth_samples;
  if (l.inflight.available) j["inflight"] = l.inflight;
  if (l.has_ops)
    j["ops_per_s"] = {
        {"reads", l.reads_per_s}, {"writes", l.writes_per_s}, {"flushes", l.flushes_per_s}};
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
  ReadDepthUncertainty(j, l);
  if (j.contains("inflight")) l.inflight = j.at("inflight").get<InflightDistribution>();
  l.has_ops = j.contains("ops_per_s");
  if (l.has_ops) {
    const nlohmann::json& o = j.at("ops_per_s");
    l.reads_per_s = o.value("reads", 0.0);
    l.writes_per_s = o.value("writes", 0.0);
    l.flushes_per_s = o.value("flushes", 0.0);
  }
}

void to_json(nlohmann::json& j, const Ladder& l) {
  j = nlohmann::json{{"layers", l.layers}};
  if (!l.limits.empty()) j["limits"] = l.limits;
}

void from_json(const nlohmann::json& j, Ladder& l) {
  l.layers = j.at("layers").get<std::vector<LayerStats>>();
  l.limits = j.value("limits", std::vector<LayerLimit>{});
}

}  // namespace storbed
