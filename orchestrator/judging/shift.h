// How far CAND lies from BASE, on the log scale (so a change is a ratio), with its
// intervals and the test against a noise band, from one of two designs:
// - unpaired (two independent sets of runs): the Hodges-Lehmann shift (the median of the
//   pairwise log ratios), its intervals from inverting the exact Mann-Whitney test, and
//   that test's p against the band's edges; effect, interval and test agree by construction;
// - paired (blocks: interleaved rounds, each holding one run of each side): the mean of
//   the per-round log ratios, with a Student t interval and test, so what slows a whole
//   round cancels.
#pragma once

#include <cmath>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace storbed {

struct LogInterval {
  double low = 0, high = 0;  // log(CAND / BASE)
};

// No change: a log shift inside [-lower, +upper]. From a relative band of +-noise:
// lower = -log(1 - noise), upper = log(1 + noise), so "no change" is a ratio in
// [1 - noise, 1 + noise].
struct Band {
  double lower = 0, upper = 0;
  static Band FromNoise(double noise) { return {-std::log1p(-noise), std::log1p(noise)}; }
  // The edge a change must pass, the wider of the two (the figures of power use it).
  double Widest() const { return lower > upper ? lower : upper; }
};

// How the sides' runs relate, which decides the test and its power:
// Unpaired: two independent sets of runs (the rank test);
// Paired: blocks, one run of each side per round (paired t on per-round log ratios);
// Night: tonight's level against the levels of the baseline nights, each night one value
//   (a t prediction interval: the gate's, judging/night_model.h).
enum class Design { Unpaired, Paired, Night };
std::string ToString(Design d);  // "unpaired", "paired by round", "nights"

struct ShiftTest {
  Design design = Design::Unpaired;
  std::string method;  // "Hodges-Lehmann, exact Mann-Whitney", "per-round log ratios, paired t"
  size_t n_base = 0, n_cand = 0;  // paired: the blocks used; night: baseline nights, tonight's runs
  double shift = 0;               // log(CAND / BASE); the ratio is exp(shift)
  std::optional<LogInterval> ci95, ci90;  // nullopt where these runs cannot give one
  // Two-sided p of "the shift lies inside the band": twice the smaller of the one-sided p
  // of "not below -lower" and of "not above +upper". The classic p when the band is 0.
  double p = 1;
  int direction = 0;      // -1: the smaller one-sided p says CAND lower; +1 higher
  double smallest_p = 1;  // the smallest p these numbers of runs can give
  double sigma = 0;       // SD of the logs (pooled over sides), or of the per-round log ratios
  size_t sigma_df = 0;    // its degrees of freedom
  bool exact = false;     // the p and intervals are exact (permutation), not approximate
};

// Unpaired: base and cand hold one value per run, every value > 0 and finite (else
// std::invalid_argument). Intervals where the rank test allows them (4 v 4 for 95%).
ShiftTest UnpairedShift(const std::vector<double>& base, const std::vector<double>& cand,
                        Band band);

// Paired: base[i] and cand[i] ran in the same block; at least 3 blocks (else
// std::invalid_argument), values > 0 and finite.
ShiftTest PairedShift(const std::vector<double>& base, const std::vector<double>& cand, Band band);

// The smallest two-sided p a design can give: 2 / C(m+n, m) unpaired; paired and night, 0
// (a t test reaches any p) from 3 blocks or baseline nights, else 1.
double SmallestP(Design design, size_t n_base, size_t n_cand);

}  // namespace storbed
