// Series with a known mean and the coverage MeanInterval95 gives them: what the unit test
// asserts and `storbed-calibrate ladder-intervals` prints, kept beside the rule, out of it.
#pragma once

#include <cstdint>
#include <vector>

#include "judging/mean_interval.h"
#include "judging/seeded_draws.h"

namespace storbed {

// A series with a known mean, for the rule's calibration: a stationary Gaussian AR(1) with
// coefficient `phi` (mean 0, unit innovations), or a 0/1 count that turns on with
// probability `on` and off with probability `off` at each sample (mean on / (on + off);
// its lag-1 autocorrelation is 1 - on - off).
struct SampleProcess {
  bool on_off = false;
  double phi = 0;
  double on = 0, off = 0;
  double Mean() const { return on_off ? on / (on + off) : 0.0; }
};

// `n` samples of `p`, started from its stationary distribution.
std::vector<double> DrawSeries(const SampleProcess& p, size_t n, SeededDraws& draws);

struct CoverageResult {
  size_t replicates = 0;
  size_t given = 0;             // replicates with an interval
  size_t covered = 0;           // of those, the ones holding the true mean
  double half_width_sum = 0;    // over the intervals given
  double known_half_width = 0;  // 1.96 x the true standard deviation of the mean
  double Coverage() const { return given ? double(covered) / double(given) : 0.0; }
  double Refused() const { return replicates ? 1 - double(given) / double(replicates) : 0.0; }
  // The intervals' mean width against the one the true autocorrelation would give.
  double WidthOverKnown() const {
    return given && known_half_width > 0 ? half_width_sum / double(given) / known_half_width : 0;
  }
};

// `replicates` seeded series of `n` samples of `p`, each judged by MeanInterval95.
CoverageResult MeasureCoverage(const SampleProcess& p, size_t n, size_t replicates, uint64_t seed);

}  // namespace storbed
