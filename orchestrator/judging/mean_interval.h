// The 95% interval of a mean of point samples taken at a fixed period (a queue's in-flight
// count every 10 ms), where successive samples are alike and so carry less than one
// sample's worth each. The rule, and why (measured by MeasureCoverage in
// mean_interval_calibration.h, printed by
// `storbed-calibrate ladder-intervals`, documented in docs/results.md):
// - The lag-1 autocorrelation r, corrected for its small-sample bias (r + (1 + 4r)/n),
//   raised by two of its standard errors (sqrt((1 - r^2)/n)) and taken as an AR(1)
//   coefficient phi gives tau = (1 + phi)/(1 - phi) samples per independent one. The
//   raise keeps series that only look less correlated than they are from passing the
//   minimum with too narrow an interval.
// - The means of 10 consecutive batches give a second tau: a slow drift that the lag-1
//   figure misses shows there. The larger tau is used.
// - Effective samples n/tau; the interval is sqrt(variance * tau / n) times Student t on
//   min(effective samples / 2, runs) - 1 degrees of freedom, where runs are the stretches
//   the samples spend on one side of their mean (half the effective samples: the error in
//   tau about doubles that of the variance estimate).
// - No interval below kMinEffectiveSamples effective samples or kMinRuns runs: a 0/1
//   count that flipped a handful of times says little about its mean whatever n is.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace storbed {

inline constexpr double kMinEffectiveSamples = 10;
inline constexpr uint64_t kMinRuns = 10;

struct MeanInterval {
  bool available = false;  // false: `basis` says why there is no interval
  double mean = 0;
  double half_width = 0;  // 95%
  uint64_t samples = 0;
  double effective_samples = 0;  // n / tau, as judged for the minimum
  double autocorrelation = 0;    // lag-1, bias corrected
  uint64_t runs = 0;             // stretches on one side of the mean
  double df = 0;                 // Student t degrees of freedom
  // "209 point samples, about 31 effective (lag-1 autocorrelation 0.62, taken 2 standard
  // errors high), Student t on 14 df", or why there is none: "about 4 effective samples of
  // 60 (lag-1 autocorrelation 0.93): too few for a 95% interval, which needs 10; ...".
  std::string basis;
};

// The mean of `samples` (in time order, equally spaced) and its 95% interval. Never throws.
MeanInterval MeanInterval95(const std::vector<double>& samples);

}  // namespace storbed
