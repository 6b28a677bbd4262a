#include "judging/power.h"

#include <algorithm>
#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <cstring>
#include <functional>
#include <map>
#include <mutex>
#include <queue>
#include <tuple>
#include <vector>

#include "judging/rank_sum.h"
#include "judging/seeded_draws.h"
#include "judging/shift.h"

namespace storbed {
namespace {

constexpr size_t kDraws = 4000;
constexpr size_t kExactRankPower = 50;  // runs a side simulated; beyond, the normal form
constexpr size_t kMaxRuns = 10000;

uint64_t Bits(double v) {
  uint64_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

// The k-th largest of y_j - x_i over all pairs (k >= 1). For a small k by walking the pairs
// from the largest down with a heap, O((n + k) log n); else a selection over all m x n.
double KthLargestDifference(std::vector<double>& y, std::vector<double>& x, size_t k,
                            std::vector<double>& scratch) {
  if (k * 8 > x.size() * y.size()) {
    scratch.clear();
    for (double yj : y)
      for (double xi : x) scratch.push_back(yj - xi);
    std::nth_element(scratch.begin(), scratch.begin() + long(k - 1), scratch.end(),
                     std::greater<>());
    return scratch[k - 1];
  }
  std::sort(x.begin(), x.end());
  std::sort(y.begin(), y.end(), std::greater<>());
  using Entry = std::tuple<double, size_t, size_t>;  // difference, index in y, index in x
  std::priority_queue<Entry> heap;
  for (size_t j = 0; j < y.size(); ++j) heap.emplace(y[j] - x[0], j, 0);
  for (;;) {
    const auto [d, j, i] = heap.top();
    if (--k == 0) return d;
    heap.pop();
    if (i + 1 < x.size()) heap.emplace(y[j] - x[i + 1], j, i + 1);
  }
}

// Per draw, in units of the true sigma: the shift beyond the margin this draw's test needs
// to call the change. A draw calls a shift s when (s - margin) / sigma >= threshold.
std::vector<double> MakeThresholds(Design design, size_t m, size_t n, double level) {
  SeededDraws draws(DerivedSeed(uint64_t(design), m, n, Bits(level)));
  std::vector<double> t(kDraws);
  if (design != Design::Unpaired) {
    // Paired: the mean of m per-round differences has standard error sigma / sqrt(m).
    // Night: tonight's level less the mean of m nights' has sigma sqrt(1 + 1/m).
    const double scale =
        design == Design::Paired ? 1 / std::sqrt(double(m)) : std::sqrt(1 + 1 / double(m));
    const boost::math::students_t dist(double(m - 1));
    const double tc = boost::math::quantile(boost::math::complement(dist, level / 2));
    for (double& v : t) {
      const double sd = std::sqrt(draws.ChiSquare(m - 1) / double(m - 1));
      v = scale * (draws.Normal() + tc * sd);
    }
    return t;
  }
  if (m > kExactRankPower || n > kExactRankPower) {
    // The Hodges-Lehmann shift is near normal with variance (pi/3) sigma^2 (1/m + 1/n); its
    // interval's end lies z standard errors out, z from the exact critical rank (so the
    // test's discreteness stays in), and the change is called when that end clears.
    const size_t k = RankSumCriticalK(m, n, level / 2);
    const double sd_u = std::sqrt(double(m * n) * double(m + n + 1) / 12);
    const double zc = (double(m * n) / 2 - (double(k) - 0.5)) / sd_u;
    const double se = std::sqrt(M_PI / 3 * (1.0 / double(m) + 1.0 / double(n)));
    for (double& v : t) v = se * (zc + draws.Normal());
    return t;
  }
  // The interval's upper end is the k-th largest pairwise difference: the change is
  // called when the shifted differences' end falls below -margin.
  const size_t k = RankSumCriticalK(m, n, level / 2);
  std::vector<double> x(m), y(n), scratch;
  for (double& v : t) {
    for (double& xi : x) xi = draws.Normal();
    for (double& yi : y) yi = draws.Normal();
    v = KthLargestDifference(y, x, k, scratch);
  }
  return t;
}

// Per draw: the estimated sigma over the true one, sqrt(chi2_df / df).
std::vector<double> MakeSpreadRatios(size_t df) {
  SeededDraws draws(DerivedSeed(0x5eed, df));
  std::vector<double> w(kDraws);
  for (double& v : w) v = std::sqrt(draws.ChiSquare(df) / double(df));
  return w;
}

std::mutex cache_mutex;

const std::vector<double>& Thresholds(Design design, size_t m, size_t n, double level) {
  static std::map<std::tuple<Design, size_t, size_t, uint64_t>, std::vector<double>> cache;
  std::lock_guard<std::mutex> lock(cache_mutex);
  if (design != Design::Unpaired) n = 0;  // one count describes the design
  auto key = std::make_tuple(design, m, n, Bits(level));
  auto it = cache.find(key);
  if (it == cache.end()) it = cache.emplace(key, MakeThresholds(design, m, n, level)).first;
  return it->second;
}

const std::vector<double>& SpreadRatios(size_t df) {
  static std::map<size_t, std::vector<double>> cache;
  std::lock_guard<std::mutex> lock(cache_mutex);
  auto it = cache.find(df);
  if (it == cache.end()) it = cache.emplace(df, MakeSpreadRatios(df)).first;
  return it->second;
}

bool Reachable(Design design, size_t m, size_t n, double level) {
  if (design != Design::Unpaired) return m >= 3;
  return RankSumCriticalK(m, n, level / 2) > 0;
}

bool Estimable(const PowerQuery& q) { return q.sigma > 0 && q.sigma_df > 0; }

// Power at n runs a side for a shift, the spread known only as q's estimate.
// The gate's power given its baseline: the same s-hat that prints the figure sets tonight's
// interval, so only tonight's level and the true sigma are unknown. Tonight is called when
// shift - margin - t_c s-hat scale > sigma scale Z, so the power is Phi((c - t_c) W) with
// c = (shift - margin) / (s-hat scale) and W = s-hat / sigma, averaged over W. (Treating
// s-hat as a fresh draw, as compare's figures rightly do for a next comparison, promised a
// 10% change 0.40 where 0.29 came, simulated: storbed-calibrate gate.)
double NightPower(const PowerQuery& q, size_t nights, double shift) {
  const double scale = std::sqrt(1 + 1 / double(nights));
  const boost::math::students_t dist(double(nights - 1));
  const double tc = boost::math::quantile(boost::math::complement(dist, q.level / 2));
  const double c = (shift - q.margin) / (q.sigma * scale);
  double sum = 0;
  const std::vector<double>& w = SpreadRatios(q.sigma_df);
  for (double wi : w) sum += 0.5 * std::erfc(-(c - tc) * wi / M_SQRT2);  // Phi
  return sum / double(w.size());
}

double PowerWith(const PowerQuery& q, size_t m, size_t n, double shift) {
  if (!Reachable(q.design, m, n, q.level)) return 0;
  if (q.design == Design::Night) return NightPower(q, m, shift);
  const std::vector<double>& t = Thresholds(q.design, m, n, q.level);
  const std::vector<double>& w = SpreadRatios(q.sigma_df);
  // The true sigma is sigma_hat / W: a draw calls the shift when
  // (shift - margin) / sigma_hat * W >= threshold.
  const double standardized = (shift - q.margin) / q.sigma;
  size_t called = 0;
  for (size_t i = 0; i < t.size(); ++i) called += standardized * w[i] >= t[i];
  return double(called) / double(t.size());
}

}  // namespace

size_t RunsToReach(Design design, double level) {
  if (design != Design::Unpaired) return 3;
  // 2 / C(2n, n) falls fast: the loop ends within a few steps for any sensible level.
  size_t n = 2;
  while (n < kMaxRuns && !Reachable(design, n, n, level)) ++n;
  return n;
}

double PowerAt(const PowerQuery& q, double shift) {
  if (!Estimable(q)) return 0;
  return PowerWith(q, q.n_base, q.n_cand, std::fabs(shift));
}

std::optional<double> ResolvableShift(const PowerQuery& q) {
  if (!Estimable(q) || !Reachable(q.design, q.n_base, q.n_cand, q.level)) return std::nullopt;
  if (q.design == Design::Night) {  // power rises with the shift: bisect it
    double low = q.margin, high = q.margin + q.sigma;
    while (NightPower(q, q.n_base, high) < q.power) high += high - q.margin;
    for (int i = 0; i < 50; ++i) {
      const double mid = (low + high) / 2;
      (NightPower(q, q.n_base, mid) < q.power ? low : high) = mid;
    }
    return high;
  }
  const std::vector<double>& t = Thresholds(q.design, q.n_base, q.n_cand, q.level);
  const std::vector<double>& w = SpreadRatios(q.sigma_df);
  std::vector<double> needed(t.size());  // per draw, the standardized shift it calls
  for (size_t i = 0; i < t.size(); ++i) needed[i] = t[i] / w[i];
  const size_t at =
      std::min(needed.size() - 1, size_t(std::ceil(q.power * double(needed.size()))) - 1);
  std::nth_element(needed.begin(), needed.begin() + long(at), needed.end());
  return q.margin + q.sigma * std::max(0.0, needed[at]);
}

std::optional<size_t> RunsNeeded(const PowerQuery& q, double shift) {
  shift = std::fabs(shift);
  if (!Estimable(q) || shift <= q.margin) return std::nullopt;
  auto enough = [&](size_t n) { return PowerWith(q, n, n, shift) >= q.power; };
  size_t low = RunsToReach(q.design, q.level);  // below it nothing is called
  if (low > kMaxRuns) return std::nullopt;
  if (enough(low)) return low;
  size_t high = low;
  while (!enough(high)) {
    low = high;
    high *= 2;
    if (high > kMaxRuns) return std::nullopt;
  }
  while (high - low > 1) {  // enough(high), not enough(low)
    const size_t mid = low + (high - low) / 2;
    (enough(mid) ? high : low) = mid;
  }
  return high;
}

}  // namespace storbed
