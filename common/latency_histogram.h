// A run's per-IO latency histogram as results carry it: the agent's non-empty buckets,
// each [low_ns, low_ns + width_ns) with its count. Repeats of one combination merge by
// adding counts, so percentiles of a cell come from all its IOs, not from averaging the
// runs' percentiles (which is not a percentile of anything).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <utility>
#include <vector>

namespace storbed {

struct LatencyHistogram {
  // Parallel arrays in ascending low_ns, one entry per non-empty bucket.
  std::vector<uint64_t> low_ns, width_ns, count;

  void Add(uint64_t low, uint64_t width, uint64_t n);
  uint64_t Total() const;
  bool empty() const { return low_ns.empty(); }
};

// JSON: {"low_ns": [...], "width_ns": [...], "count": [...]}. Reading throws
// std::invalid_argument when the arrays differ in length.
void to_json(nlohmann::json& j, const LatencyHistogram& h);
void from_json(const nlohmann::json& j, LatencyHistogram& h);

// Every bucket of every histogram, counts of equal buckets added; ascending low_ns.
LatencyHistogram MergeHistograms(const std::vector<const LatencyHistogram*>& parts);

// The latency at percentile q (0..100) in microseconds: the middle of the bucket holding
// the ceil(q% * total)-th smallest IO, the agent's rule (without its clamp to the run's
// min and max, which a histogram does not carry). 0 for an empty histogram.
double HistogramPercentileUs(const LatencyHistogram& h, double q);

// The cumulative distribution as points (latency us, % of IOs at or below): the first
// bucket's lower edge at 0%, then each bucket's upper edge with the share up to it.
std::vector<std::pair<double, double>> HistogramCdf(const LatencyHistogram& h);

}  // namespace storbed
