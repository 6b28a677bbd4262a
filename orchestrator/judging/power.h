// What a design can see: the smallest change its runs find with 80% power, and the runs a
// side that would find a given change. Both are computed for the test storbed actually
// applies (the exact rank test, or the paired t on per-round log ratios), at the level a
// lone change must pass under the family's correction (alpha / tests), beyond the noise
// band a verdict must clear, and with the spread's own uncertainty: the spread is
// estimated from the runs (sigma with df degrees of freedom), so the figures are averaged
// over what the true spread could be given that estimate. Then a change of the printed
// size is found in 80% of experiments, not only when the estimate happened to be right.
//
// The rank test's power has no closed form at small n: it is simulated (4000 seeded
// draws per design, cached by design), normal (log) runs, the threshold each draw's
// interval needs read off its sorted pairwise differences. Beyond 50 runs a side the
// large-sample normal form (efficiency 3/pi, at the exact test's critical rank) stands in.
//
// The gate's nights (Design::Night) are the exception: there the spread that prints the
// figure also sets tonight's interval, so the power is conditional on it (power.cc,
// NightPower), averaged over the true spread only.
#pragma once

#include <cstddef>
#include <optional>

#include "judging/shift.h"

namespace storbed {

struct PowerQuery {
  Design design = Design::Unpaired;
  size_t n_base = 0, n_cand = 0;  // paired: blocks; night: baseline nights (n_cand unused)
  double sigma = 0;               // SD of the logs (pooled), or of the per-round log ratios
  size_t sigma_df = 0;            // its degrees of freedom
  double margin = 0;              // log: the band edge a verdict must clear
  double level = 0.01;            // two-sided, per test: alpha / family size
  double power = 0.8;
};

// The smallest |log shift| found with q.power; nullopt when no change can be (the level
// is below the smallest p the runs can give) or the spread is 0 or unestimated.
std::optional<double> ResolvableShift(const PowerQuery& q);

// The probability that a true |log shift| of `shift` is called (better or worse).
double PowerAt(const PowerQuery& q, double shift);

// The smallest number of runs a side (blocks, paired; baseline nights) whose power to call `shift`
// reaches q.power, the spread as q has it (its df from the runs at hand); nullopt when
// `shift` does not pass the margin, the spread is 0, or more than 10000 would be needed.
std::optional<size_t> RunsNeeded(const PowerQuery& q, double shift);

// The smallest number of runs a side at which a verdict is reachable at all at `level`.
size_t RunsToReach(Design design, double level);

}  // namespace storbed
