#include "judging/mean_interval_calibration.h"

#include <cmath>

namespace storbed {

std::vector<double> DrawSeries(const SampleProcess& p, size_t n, SeededDraws& draws) {
  std::vector<double> x(n);
  if (n == 0) return x;
  if (p.on_off) {
    x[0] = draws.Uniform() < p.Mean() ? 1 : 0;
    for (size_t i = 1; i < n; ++i) {
      const double u = draws.Uniform();
      x[i] = x[i - 1] == 1 ? (u < p.off ? 0 : 1) : (u < p.on ? 1 : 0);
    }
    return x;
  }
  // Started from the stationary distribution, so no burn-in is needed.
  x[0] = draws.Normal() / std::sqrt(1 - p.phi * p.phi);
  for (size_t i = 1; i < n; ++i) x[i] = p.phi * x[i - 1] + draws.Normal();
  return x;
}

namespace {

// The true standard deviation of the mean of `n` samples of `p`: both processes have
// autocorrelation a^k at lag k.
double TrueSdOfMean(const SampleProcess& p, size_t n) {
  const double a = p.on_off ? 1 - p.on - p.off : p.phi;
  const double var = p.on_off ? p.Mean() * (1 - p.Mean()) : 1 / (1 - p.phi * p.phi);
  double sum = 1, ak = 1;
  for (size_t k = 1; k < n; ++k) {
    ak *= a;
    sum += 2 * (1 - double(k) / double(n)) * ak;
  }
  return std::sqrt(var * sum / double(n));
}

}  // namespace

CoverageResult MeasureCoverage(const SampleProcess& p, size_t n, size_t replicates, uint64_t seed) {
  SeededDraws draws(seed);
  CoverageResult c;
  c.replicates = replicates;
  c.known_half_width = 1.96 * TrueSdOfMean(p, n);
  for (size_t r = 0; r < replicates; ++r) {
    const MeanInterval m = MeanInterval95(DrawSeries(p, n, draws));
    if (!m.available) continue;
    ++c.given;
    c.half_width_sum += m.half_width;
    if (std::fabs(m.mean - p.Mean()) <= m.half_width) ++c.covered;
  }
  return c;
}

}  // namespace storbed
