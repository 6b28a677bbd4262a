#include "inflight_stats.h"

#include <cmath>

namespace storbed {
namespace {

// The smallest count whose cumulative share reaches `q`.
double Quantile(const std::vector<double>& share, double q) {
  double cum = 0;
  for (size_t n = 0; n < share.size(); ++n) {
    cum += share[n];
    if (cum >= q - 1e-12) return static_cast<double>(n);
  }
  return share.empty() ? 0 : static_cast<double>(share.size() - 1);
}

InflightDistribution FromWeights(std::vector<double> w, bool exact, uint64_t samples) {
  InflightDistribution d;
  double total = 0;
  for (double v : w) total += v;
  if (total <= 0) return d;
  for (double& v : w) v /= total;
  while (!w.empty() && w.back() == 0) w.pop_back();
  d.available = true;
  d.exact = exact;
  d.samples = samples;
  d.share = std::move(w);
  d.p50 = Quantile(d.share, 0.50);
  d.p99 = Quantile(d.share, 0.99);
  d.max = static_cast<double>(d.share.size() - 1);
  return d;
}

}  // namespace

InflightDistribution DistributionOfSamples(const std::vector<double>& counts) {
  std::vector<double> w;
  for (double c : counts) {
    if (!(c >= 0)) continue;
    const size_t n = static_cast<size_t>(std::llround(c));
    if (w.size() <= n) w.resize(n + 1, 0);
    w[n] += 1;
  }
  return FromWeights(std::move(w), false, counts.size());
}

InflightDistribution DistributionOfTime(const std::vector<double>& time_at_count) {
  return FromWeights(time_at_count, true, 0);
}

}  // namespace storbed
