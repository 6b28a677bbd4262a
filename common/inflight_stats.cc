#include "inflight_stats.h"

#include <algorithm>
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

// Student t, two-sided 95%, for 1..9 degrees of freedom.
constexpr double kT95[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262};
constexpr size_t kMaxBatches = 10;

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

MeanInterval MeanInterval95(const std::vector<double>& samples) {
  MeanInterval m;
  m.samples = samples.size();
  if (samples.empty()) return m;
  double sum = 0;
  for (double v : samples) sum += v;
  m.mean = sum / static_cast<double>(samples.size());
  if (samples.size() < 2) return m;
  const size_t batches = std::min(kMaxBatches, samples.size());
  std::vector<double> means;
  for (size_t b = 0; b < batches; ++b) {
    // Batch b holds samples [b*n/B, (b+1)*n/B): every sample in exactly one batch.
    const size_t from = b * samples.size() / batches, to = (b + 1) * samples.size() / batches;
    double s = 0;
    for (size_t i = from; i < to; ++i) s += samples[i];
    means.push_back(s / static_cast<double>(to - from));
  }
  double grand = 0;
  for (double v : means) grand += v;
  grand /= static_cast<double>(means.size());
  double ss = 0;
  for (double v : means) ss += (v - grand) * (v - grand);
  const double sd = std::sqrt(ss / static_cast<double>(means.size() - 1));
  m.available = true;
  m.half_width = kT95[means.size() - 2] * sd / std::sqrt(static_cast<double>(means.size()));
  m.basis = std::to_string(samples.size()) + " point samples, batch means (" +
            std::to_string(means.size()) + " batches)";
  return m;
}

}  // namespace storbed
