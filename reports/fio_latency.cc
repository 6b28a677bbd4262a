#include "reports/fio_latency.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

namespace storbed {
namespace {

using ordered_json = nlohmann::ordered_json;

// fio's percentile keys: "%f" of the percentile ("99.900000").
std::string PercentileKey(double q) {
  char text[32];
  std::snprintf(text, sizeof text, "%f", q);
  return text;
}

uint64_t NsOf(double us) { return FioRound(us * 1000.0); }

// The key of the bucket holding the ceil(q% * total)-th smallest IO: the agent's rule
// (common/latency_histogram.cc), at the bucket's key so it is one of the bins.
uint64_t PercentileNs(const LatencyHistogram& h, uint64_t total, double q) {
  const uint64_t rank = std::max<uint64_t>(1, FioRound(std::ceil(q / 100.0 * double(total))));
  uint64_t seen = 0;
  for (size_t i = 0; i < h.low_ns.size(); ++i) {
    seen += h.count[i];
    if (seen >= rank) return FioBinKey(h.low_ns[i], h.width_ns[i]);
  }
  return FioBinKey(h.low_ns.back(), h.width_ns.back());
}

// fio's range ends (io_u.c io_u_mark_lat_nsec/usec/msec): a value v falls in the first
// range whose end is above it; ms adds 2000 and a last ">=2000".
constexpr uint64_t kRangeEnds[] = {2, 4, 10, 20, 50, 100, 250, 500, 750, 1000, 2000};
constexpr size_t kNsUsRanges = 10, kMsRanges = 11;

ordered_json ZeroBuckets(size_t ranges, bool open_end) {
  ordered_json o = ordered_json::object();
  for (size_t i = 0; i < ranges; ++i) o[std::to_string(kRangeEnds[i])] = 0.0;
  if (open_end) o[">=" + std::to_string(kRangeEnds[ranges - 1])] = 0.0;
  return o;
}

std::string RangeKey(uint64_t value, size_t ranges) {
  for (size_t i = 0; i < ranges; ++i)
    if (value < kRangeEnds[i]) return std::to_string(kRangeEnds[i]);
  return ">=" + std::to_string(kRangeEnds[ranges - 1]);
}

}  // namespace

uint64_t FioRound(double x) {
  if (!(x > 0)) return 0;
  if (x >= 18446744073709549568.0) return UINT64_MAX;  // the largest double below 2^64
  return uint64_t(std::round(x));
}

uint64_t FioBinKey(uint64_t low_ns, uint64_t width_ns) { return low_ns + width_ns / 2; }

ordered_json FioZeroLatency() {
  return {{"min", 0}, {"max", 0}, {"mean", 0.0}, {"stddev", 0.0}, {"N", 0}};
}

double HistogramStddevNs(const LatencyHistogram& h) {
  const uint64_t total = h.Total();
  if (total < 2) return 0;
  double sum = 0;
  for (size_t i = 0; i < h.low_ns.size(); ++i)
    sum += double(h.count[i]) * double(FioBinKey(h.low_ns[i], h.width_ns[i]));
  const double mean = sum / double(total);
  double squares = 0;
  for (size_t i = 0; i < h.low_ns.size(); ++i) {
    const double d = double(FioBinKey(h.low_ns[i], h.width_ns[i])) - mean;
    squares += double(h.count[i]) * d * d;
  }
  return std::sqrt(squares / double(total - 1));
}

ordered_json FioLatency(const LatencySummary& s, const LatencyHistogram& h) {
  ordered_json o = {{"min", NsOf(s.min_us)},
                    {"max", NsOf(s.max_us)},
                    {"mean", s.mean_us * 1000.0},
                    {"stddev", HistogramStddevNs(h)},
                    {"N", s.count}};
  const uint64_t total = h.Total();
  if (total == 0) return o;
  ordered_json percentile = ordered_json::object();
  // Clamped to the exact min and max as the agent clamps its own p50..p999, so the
  // percentiles here are result.latency's where both have them.
  const uint64_t lo = NsOf(s.min_us), hi = std::max(lo, NsOf(s.max_us));
  for (double q : kFioPercentiles) {
    const uint64_t ns = PercentileNs(h, total, q);
    percentile[PercentileKey(q)] = s.count > 0 ? std::clamp(ns, lo, hi) : ns;
  }
  o["percentile"] = percentile;
  ordered_json bins = ordered_json::object();
  for (size_t i = 0; i < h.low_ns.size(); ++i)
    if (h.count[i] > 0) bins[std::to_string(FioBinKey(h.low_ns[i], h.width_ns[i]))] = h.count[i];
  o["bins"] = bins;
  return o;
}

FioLatencyBuckets FioLatencyBucketsOf(const LatencyHistogram& h) {
  FioLatencyBuckets b{ZeroBuckets(kNsUsRanges, false), ZeroBuckets(kNsUsRanges, false),
                      ZeroBuckets(kMsRanges, true)};
  const uint64_t total = h.Total();
  if (total == 0) return b;
  for (size_t i = 0; i < h.low_ns.size(); ++i) {
    const uint64_t ns = FioBinKey(h.low_ns[i], h.width_ns[i]);
    const double percent = 100.0 * double(h.count[i]) / double(total);
    if (ns < 1000) {
      const std::string key = RangeKey(ns, kNsUsRanges);
      b.ns[key] = b.ns[key].get<double>() + percent;
    } else if (ns < 1000000) {
      const std::string key = RangeKey(ns / 1000, kNsUsRanges);
      b.us[key] = b.us[key].get<double>() + percent;
    } else {
      const std::string key = RangeKey(ns / 1000000, kMsRanges);
      b.ms[key] = b.ms[key].get<double>() + percent;
    }
  }
  return b;
}

}  // namespace storbed
