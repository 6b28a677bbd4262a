#include "reports/compare_metrics.h"

#include <algorithm>

#include "reports/cells.h"

namespace storbed {
namespace {

using Value = std::optional<double>;

// A figure of the job's result; nullopt for a run without one.
CompareMetric FromResult(std::string name, Better d, MetricRole role,
                         double (*get)(const JobResult&)) {
  return {std::move(name), d, role, [get](const RunRecord& r) -> Value {
            if (!r.result) return std::nullopt;
            return get(*r.result);
          }};
}

// The average depth at one rung of the run's ladder, where it was measured.
CompareMetric Rung(const std::string& layer) {
  return {"depth " + layer, Better::None, MetricRole::Shown, [layer](const RunRecord& r) -> Value {
            if (!r.ladder) return std::nullopt;
            for (const LayerStats& l : r.ladder->layers)
              if (l.layer == layer && l.available) return l.avg_depth;
            return std::nullopt;
          }};
}

// The mean latency measured at one rung (the time an IO spends at and below it): lower is
// better. On a null-co disk the QEMU block rung is the injected latency itself, free of
// the guest's own time.
CompareMetric RungLatency(const std::string& layer) {
  return {"latency " + layer, Better::Lower, MetricRole::Secondary, [layer](const RunRecord& r) -> Value {
            if (!r.ladder) return std::nullopt;
            for (const LayerStats& l : r.ladder->layers)
              if (l.layer == layer && l.available && l.has_latency)
                return l.mean_latency_us;
            return std::nullopt;
          }};
}

}  // namespace

std::string ToString(Better d) {
  switch (d) {
    case Better::Higher: return "higher";
    case Better::Lower: return "lower";
    case Better::None: return "none";
  }
  return "?";
}

std::string ToString(MetricRole r) {
  switch (r) {
    case MetricRole::Primary: return "primary";
    case MetricRole::Secondary: return "secondary";
    case MetricRole::Shown: return "shown";
  }
  return "?";
}

std::string BetterPhrase(Better d) {
  return d == Better::None ? "no better direction" : ToString(d) + " is better";
}

Better DirectionOf(const std::string& metric) {
  if (metric == kGuestOverBareMetric) return Better::Higher;
  if (metric.rfind("latency ", 0) == 0) return Better::Lower;
  for (const CompareMetric& m : CompareMetrics({}))
    if (m.name == metric) return m.direction;
  return Better::None;  // the depth rungs, and anything else: shown, never judged
}

MetricRole RoleOf(const std::string& metric) {
  if (metric == kGuestOverBareMetric || metric.rfind("latency ", 0) == 0)
    return MetricRole::Secondary;
  for (const CompareMetric& m : CompareMetrics({}))
    if (m.name == metric) return m.role;
  return MetricRole::Shown;
}

std::vector<CompareMetric> CompareMetrics(const std::vector<RunRecord>& records) {
  std::vector<CompareMetric> metrics = {
      FromResult("iops", Better::Higher, MetricRole::Primary,
                 [](const JobResult& r) { return r.iops; }),
      FromResult("mib_s", Better::Higher, MetricRole::Shown,
                 [](const JobResult& r) { return r.mib_s; }),
      FromResult("p50_us", Better::Lower, MetricRole::Primary,
                 [](const JobResult& r) { return r.latency.p50_us; }),
      FromResult("p99_us", Better::Lower, MetricRole::Primary,
                 [](const JobResult& r) { return r.latency.p99_us; }),
      {"req_kib", Better::None, MetricRole::Shown,
       [](const RunRecord& r) -> Value {
         if (!r.result || !r.result->block.available) return std::nullopt;
         return r.result->block.avg_request_bytes / 1024;
       }},
  };
  // Rungs in ladder order, as the records have them.
  std::vector<std::string> layers;
  for (const RunRecord& r : records)
    if (r.ladder)
      for (const LayerStats& l : r.ladder->layers)
        if (std::find(layers.begin(), layers.end(), l.layer) == layers.end())
          layers.push_back(l.layer);
  const std::vector<std::string> order = {kLayerApp, kLayerGuestBlock, kLayerVirtqueue,
                                          kLayerQemuBlock, kLayerHostDevice};
  auto rank = [&](const std::string& l) {
    return std::find(order.begin(), order.end(), l) - order.begin();
  };
  std::stable_sort(layers.begin(), layers.end(),
                   [&](const std::string& a, const std::string& b) { return rank(a) < rank(b); });
  for (const std::string& layer : layers) metrics.push_back(Rung(layer));
  for (const std::string& layer : layers) metrics.push_back(RungLatency(layer));
  return metrics;
}

std::map<std::string, std::vector<double>> ValuesByCell(const std::vector<RunRecord>& records,
                                                        const CompareMetric& m) {
  std::map<std::string, std::vector<double>> out;
  for (const RunRecord& r : records)
    if (r.status == RunStatus::Ok && r.result)
      if (const auto v = m.value(r)) out[CellOf(r)].push_back(*v);
  return out;
}

}  // namespace storbed
