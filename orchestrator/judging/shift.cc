#include "judging/shift.h"

#include <algorithm>
#include <boost/math/distributions/students_t.hpp>
#include <numeric>
#include <stdexcept>

#include "judging/rank_sum.h"

namespace storbed {
namespace {

std::vector<double> Logs(const std::vector<double>& x, const char* side) {
  std::vector<double> out;
  out.reserve(x.size());
  for (double v : x) {
    if (!std::isfinite(v) || v <= 0)
      throw std::invalid_argument(std::string(side) +
                                  ": a ratio needs values above 0 that are finite numbers");
    out.push_back(std::log(v));
  }
  return out;
}

double Mean(const std::vector<double>& x) {
  return std::accumulate(x.begin(), x.end(), 0.0) / double(x.size());
}

double SumSquares(const std::vector<double>& x) {
  const double m = Mean(x);
  double ss = 0;
  for (double v : x) ss += (v - m) * (v - m);
  return ss;
}

std::vector<double> Shifted(const std::vector<double>& x, double by) {
  std::vector<double> out = x;
  for (double& v : out) v += by;
  return out;
}

// Twice the smaller one-sided p: "below -lower" from p_below, "above +upper" from p_above.
void SetBandP(ShiftTest& t, double p_below, double p_above) {
  t.direction = p_below <= p_above ? -1 : 1;
  t.p = std::min(1.0, 2 * std::min(p_below, p_above));
}

// The interval of the shift from the sorted pairwise differences that the rank test at
// two-sided level 1 - level inverts to.
std::optional<LogInterval> RankInterval(const std::vector<double>& diffs, size_t m, size_t n,
                                        double level) {
  const size_t k = RankSumCriticalK(m, n, (1 - level) / 2);
  if (k == 0 || 2 * k > diffs.size()) return std::nullopt;
  return LogInterval{diffs[k - 1], diffs[diffs.size() - k]};
}

}  // namespace

std::string ToString(Design d) {
  switch (d) {
    case Design::Unpaired:
      return "unpaired";
    case Design::Paired:
      return "paired by round";
    case Design::Night:
      return "nights";
  }
  return "?";
}

double SmallestP(Design design, size_t n_base, size_t n_cand) {
  if (design != Design::Unpaired) return n_base >= 3 ? 0.0 : 1.0;
  return SmallestRankSumP(n_base, n_cand);
}

ShiftTest UnpairedShift(const std::vector<double>& base, const std::vector<double>& cand,
                        Band band) {
  if (base.empty() || cand.empty()) throw std::invalid_argument("a shift needs runs on both sides");
  const std::vector<double> lb = Logs(base, "BASE"), lc = Logs(cand, "CAND");
  ShiftTest t;
  t.method = "Hodges-Lehmann shift, exact Mann-Whitney";
  t.n_base = lb.size();
  t.n_cand = lc.size();
  std::vector<double> diffs;
  diffs.reserve(lb.size() * lc.size());
  for (double c : lc)
    for (double b : lb) diffs.push_back(c - b);
  std::sort(diffs.begin(), diffs.end());
  const size_t mid = diffs.size() / 2;
  t.shift = diffs.size() % 2 ? diffs[mid] : (diffs[mid - 1] + diffs[mid]) / 2;
  t.ci95 = RankInterval(diffs, lc.size(), lb.size(), 0.95);
  t.ci90 = RankInterval(diffs, lc.size(), lb.size(), 0.90);
  // CAND below the band: CAND moved up by `lower` still lies lower than BASE.
  const RankSumResult below = MannWhitney(Shifted(lc, band.lower), lb);
  const RankSumResult above = MannWhitney(Shifted(lc, -band.upper), lb);
  SetBandP(t, below.p_less, above.p_greater);
  t.exact = below.exact && above.exact;
  t.smallest_p = SmallestP(Design::Unpaired, lb.size(), lc.size());
  const size_t df = lb.size() + lc.size() - 2;
  if (df > 0) {
    t.sigma = std::sqrt((SumSquares(lb) + SumSquares(lc)) / double(df));
    t.sigma_df = df;
  }
  return t;
}

ShiftTest PairedShift(const std::vector<double>& base, const std::vector<double>& cand, Band band) {
  if (base.size() != cand.size()) throw std::invalid_argument("paired sides of different lengths");
  if (base.size() < 3) throw std::invalid_argument("a paired test needs 3 blocks or more");
  const std::vector<double> lb = Logs(base, "BASE"), lc = Logs(cand, "CAND");
  std::vector<double> d(lb.size());
  for (size_t i = 0; i < d.size(); ++i) d[i] = lc[i] - lb[i];
  ShiftTest t;
  t.design = Design::Paired;
  t.method = "per-round log ratios, paired t";
  t.n_base = t.n_cand = d.size();
  t.shift = Mean(d);
  t.sigma_df = d.size() - 1;
  t.sigma = std::sqrt(SumSquares(d) / double(t.sigma_df));
  t.smallest_p = 0;
  const double n = double(d.size());
  if (t.sigma == 0) {
    // Every round the same ratio: no spread for a t test. The sign-flip permutation of
    // identical rounds gives 0.5^n on the side they lie, and the interval is that point.
    t.ci95 = t.ci90 = LogInterval{t.shift, t.shift};
    const double one_side = std::pow(0.5, n);
    SetBandP(t, t.shift < -band.lower ? one_side : 1, t.shift > band.upper ? one_side : 1);
    t.exact = true;
    return t;
  }
  const boost::math::students_t dist(double(t.sigma_df));
  const double se = t.sigma / std::sqrt(n);
  for (const auto& [level, ci] : {std::pair{0.95, &t.ci95}, std::pair{0.90, &t.ci90}}) {
    const double q = boost::math::quantile(boost::math::complement(dist, (1 - level) / 2));
    *ci = LogInterval{t.shift - q * se, t.shift + q * se};
  }
  const double p_below = boost::math::cdf(dist, (t.shift + band.lower) / se);
  const double p_above =
      boost::math::cdf(boost::math::complement(dist, (t.shift - band.upper) / se));
  SetBandP(t, p_below, p_above);
  return t;
}

}  // namespace storbed
