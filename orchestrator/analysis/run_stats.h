// Run-level statistics for comparing repeats: the unit of a sample is one run (one IO
// phase), never a slice of one. Medians with seeded bootstrap intervals (so a report
// reproduces), the Mann-Whitney U test (exact without ties for small samples, else the
// normal approximation with tie correction), and the spread a set of runs can resolve.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace storbed {

struct Interval {
  double low = 0, high = 0;
};

double Median(std::vector<double> x);

// Coefficient of variation (sample standard deviation / mean); 0 for fewer than 2
// values or a zero mean.
double CoefficientOfVariation(const std::vector<double>& x);

// Percentile bootstrap interval of the median at `level` (0.95), from `resamples`
// resamples drawn with a generator seeded by `seed`. Needs a non-empty x.
Interval BootstrapMedianCi(const std::vector<double>& x, double level, uint64_t seed,
                           int resamples = 4000);

// Percentile bootstrap interval of median(cand) / median(base), resampling each side
// on its own. nullopt when a resample's base median is 0.
std::optional<Interval> BootstrapRatioCi(const std::vector<double>& base,
                                         const std::vector<double>& cand, double level,
                                         uint64_t seed, int resamples = 4000);

// Two-sided p-value of the Mann-Whitney U test of a against b. Exact (the distribution
// of U counted) when there are no ties and both sides have at most 50 values; else the
// normal approximation with tie and continuity correction. Needs both sides non-empty.
double MannWhitneyP(const std::vector<double>& a, const std::vector<double>& b);

// Runs per side that resolve a relative change of `change` (0.02 = 2%) between two
// sides whose runs spread with coefficient of variation `cv`, at two-sided `alpha` and
// `power` (normal approximation on the relative scale). At least 3.
uint32_t RunsToResolve(double cv, double change, double alpha, double power = 0.8);

// The smallest relative change `n_base` and `n_cand` runs with spread `cv` can resolve
// at two-sided `alpha` and `power`.
double SmallestDetectableChange(double cv, size_t n_base, size_t n_cand, double alpha,
                                double power = 0.8);

}  // namespace storbed
