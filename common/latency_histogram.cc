#include "latency_histogram.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>
#include <string>

namespace storbed {

void LatencyHistogram::Add(uint64_t low, uint64_t width, uint64_t n) {
  low_ns.push_back(low);
  width_ns.push_back(width);
  count.push_back(n);
}

uint64_t LatencyHistogram::Total() const {
  uint64_t total = 0;
  for (uint64_t n : count) total += n;
  return total;
}

void to_json(nlohmann::json& j, const LatencyHistogram& h) {
  j = nlohmann::json{{"low_ns", h.low_ns}, {"width_ns", h.width_ns}, {"count", h.count}};
}

void from_json(const nlohmann::json& j, LatencyHistogram& h) {
  h.low_ns = j.at("low_ns").get<std::vector<uint64_t>>();
  h.width_ns = j.at("width_ns").get<std::vector<uint64_t>>();
  h.count = j.at("count").get<std::vector<uint64_t>>();
  if (h.low_ns.size() != h.width_ns.size() || h.low_ns.size() != h.count.size())
    throw std::invalid_argument("latency_histogram: low_ns, width_ns and count differ in length (" +
                                std::to_string(h.low_ns.size()) + ", " +
                                std::to_string(h.width_ns.size()) + ", " +
                                std::to_string(h.count.size()) + ")");
}

LatencyHistogram MergeHistograms(const std::vector<const LatencyHistogram*>& parts) {
  std::map<std::pair<uint64_t, uint64_t>, uint64_t> buckets;  // (low, width) -> count
  for (const LatencyHistogram* h : parts)
    for (size_t i = 0; i < h->low_ns.size(); ++i)
      buckets[{h->low_ns[i], h->width_ns[i]}] += h->count[i];
  LatencyHistogram merged;
  for (const auto& [bucket, n] : buckets)
    if (n > 0) merged.Add(bucket.first, bucket.second, n);
  return merged;
}

double HistogramPercentileUs(const LatencyHistogram& h, double q) {
  const uint64_t total = h.Total();
  if (total == 0) return 0;
  q = std::clamp(q, 0.0, 100.0);
  const uint64_t rank = std::max<uint64_t>(1, uint64_t(std::ceil(q / 100.0 * double(total))));
  uint64_t seen = 0;
  for (size_t i = 0; i < h.low_ns.size(); ++i) {
    seen += h.count[i];
    if (seen >= rank) return (double(h.low_ns[i]) + double(h.width_ns[i] / 2)) / 1000.0;
  }
  return (double(h.low_ns.back()) + double(h.width_ns.back() / 2)) / 1000.0;
}

std::vector<std::pair<double, double>> HistogramCdf(const LatencyHistogram& h) {
  std::vector<std::pair<double, double>> points;
  const uint64_t total = h.Total();
  if (total == 0) return points;
  points.emplace_back(double(h.low_ns.front()) / 1000.0, 0.0);
  uint64_t seen = 0;
  for (size_t i = 0; i < h.low_ns.size(); ++i) {
    seen += h.count[i];
    points.emplace_back(double(h.low_ns[i] + h.width_ns[i]) / 1000.0,
                        100.0 * double(seen) / double(total));
  }
  return points;
}

}  // namespace storbed
