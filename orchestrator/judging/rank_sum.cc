#include "judging/rank_sum.h"

#include <algorithm>
#include <boost/math/distributions/normal.hpp>
#include <cmath>
#include <map>
#include <mutex>
#include <numeric>
#include <stdexcept>

namespace storbed {
namespace {

void CheckSide(const std::vector<double>& x) {
  if (x.empty()) throw std::invalid_argument("Mann-Whitney of an empty side");
  for (double v : x)
    if (!std::isfinite(v))
      throw std::invalid_argument("Mann-Whitney of a value that is not finite");
}

// The number of orderings of m and n values (no ties) for each U = 0 .. m*n: the
// coefficients of the Gaussian binomial [m+n choose m] = prod (1 - q^(n+i)) / (1 - q^i).
std::vector<long double> UCounts(size_t m, size_t n) {
  std::vector<long double> c(m * n + 1, 0);
  c[0] = 1;
  for (size_t i = 1; i <= m; ++i) {
    for (size_t j = c.size(); j-- > n + i;) c[j] -= c[j - n - i];  // times (1 - q^(n+i))
    for (size_t j = i; j < c.size(); ++j) c[j] += c[j - i];        // over (1 - q^i)
  }
  return c;
}

// P(U <= u) for u = 0 .. m*n without ties, cached: the same designs come back for every
// cell and metric of a comparison.
const std::vector<double>& NullCdf(size_t m, size_t n) {
  static std::mutex mutex;
  static std::map<std::pair<size_t, size_t>, std::vector<double>> cache;
  if (m > n) std::swap(m, n);  // the distribution is symmetric in the sides
  std::lock_guard<std::mutex> lock(mutex);
  auto it = cache.find({m, n});
  if (it != cache.end()) return it->second;
  const std::vector<long double> c = UCounts(m, n);
  const long double all = std::accumulate(c.begin(), c.end(), 0.0L);
  std::vector<double> cdf(c.size());
  long double sum = 0;
  for (size_t j = 0; j < c.size(); ++j) {
    sum += c[j];
    cdf[j] = double(sum / all);
  }
  return cache.emplace(std::make_pair(m, n), std::move(cdf)).first->second;
}

// Twice the midrank of every value of a then b (whole numbers, so sums count exactly).
std::vector<size_t> DoubledMidranks(const std::vector<double>& a, const std::vector<double>& b) {
  std::vector<std::pair<double, size_t>> all;
  for (size_t i = 0; i < a.size(); ++i) all.push_back({a[i], i});
  for (size_t j = 0; j < b.size(); ++j) all.push_back({b[j], a.size() + j});
  std::sort(all.begin(), all.end());
  std::vector<size_t> rank2(all.size());
  for (size_t i = 0; i < all.size();) {
    size_t k = i;
    while (k < all.size() && all[k].first == all[i].first) ++k;
    for (size_t t = i; t < k; ++t) rank2[all[t].second] = i + 1 + k;  // 2 x mean of i+1 .. k
    i = k;
  }
  return rank2;
}

// P(W <= w) and P(W <= w - 1) for the sum W of m of the doubled ranks drawn without
// replacement: every m-subset is equally likely under the null, ties included. Sums only
// grow, so the count never needs states above w.
std::pair<double, double> LowerTail(const std::vector<size_t>& rank2, size_t m, size_t w) {
  // ways[j][s]: subsets of j of the ranks seen so far with doubled sum s <= w. Doubles:
  // the counts pass 2^53 only beyond this path's 60 values, as ratios they stay exact enough.
  std::vector<std::vector<double>> ways(m + 1, std::vector<double>(w + 1, 0));
  ways[0][0] = 1;
  size_t items = 0;
  for (size_t r : rank2) {
    ++items;
    if (r > w) continue;
    for (size_t j = std::min(m, items); j >= 1; --j) {
      const std::vector<double>& from = ways[j - 1];
      std::vector<double>& to = ways[j];
      for (size_t s = w; s >= r; --s) to[s] += from[s - r];
    }
  }
  double below = 0;
  for (double c : ways[m]) below += c;
  const double all = std::exp(std::lgamma(double(rank2.size() + 1)) - std::lgamma(double(m + 1)) -
                              std::lgamma(double(rank2.size() - m + 1)));
  return {below / all, (below - ways[m][w]) / all};
}

// P(W <= w) and P(W >= w), counting on the cheaper side: W's sums are whole numbers, so
// P(W >= w) = 1 - P(W <= w - 1), and the mirror ranks (2N + 2 - r) turn an upper tail
// into a lower one.
std::pair<double, double> TiedTails(const std::vector<size_t>& rank2, size_t m, size_t w) {
  const size_t mirror_total = 2 * (rank2.size() + 1) * m;  // W + W_mirror
  std::vector<size_t> mirrored(rank2.size());
  for (size_t i = 0; i < rank2.size(); ++i) mirrored[i] = 2 * (rank2.size() + 1) - rank2[i];
  if (2 * w <= mirror_total) {
    const auto [le, lt] = LowerTail(rank2, m, w);
    return {std::min(1.0, le), std::min(1.0, 1 - lt)};
  }
  // W >= w is W_mirror <= total - w; W <= w is 1 - P(W_mirror <= total - w - 1).
  const auto [ge, gt] = LowerTail(mirrored, m, mirror_total - w);
  return {std::min(1.0, 1 - gt), std::min(1.0, ge)};
}

double NormalCdf(double z) { return boost::math::cdf(boost::math::normal(), z); }

}  // namespace

RankSumResult MannWhitney(const std::vector<double>& a, const std::vector<double>& b) {
  CheckSide(a);
  CheckSide(b);
  const size_t m = a.size(), n = b.size(), total = m + n;
  const std::vector<size_t> rank2 = DoubledMidranks(a, b);
  const size_t w2 = std::accumulate(rank2.begin(), rank2.begin() + long(m), size_t{0});
  RankSumResult r;
  r.u = double(w2) / 2 - double(m * (m + 1)) / 2;
  double tie_term = 0;  // sum of t^3 - t over groups of tied values
  {
    std::vector<size_t> sorted = rank2;
    std::sort(sorted.begin(), sorted.end());
    for (size_t i = 0; i < sorted.size();) {
      size_t k = i;
      while (k < sorted.size() && sorted[k] == sorted[i]) ++k;
      const double t = double(k - i);
      tie_term += t * t * t - t;
      i = k;
    }
  }
  if (tie_term == 0 && m <= kExactSide && n <= kExactSide) {
    const std::vector<double>& cdf = NullCdf(m, n);
    const size_t u = size_t(std::llround(r.u));
    r.p_less = cdf[u];
    // P(U >= u) = P(U <= mn - u): the null distribution is symmetric about mn/2.
    r.p_greater = cdf[m * n - u];
    r.exact = true;
  } else if (tie_term > 0 && total <= kExactTiedTotal) {
    std::tie(r.p_less, r.p_greater) = TiedTails(rank2, m, w2);
    r.exact = true;
  } else {
    const double mean = double(m * n) / 2;
    const double var =
        double(m * n) / 12 * ((double(total) + 1) - tie_term / (double(total) * double(total - 1)));
    if (var <= 0) {  // every value the same: no evidence either way
      r.p_less = r.p_greater = 1;
    } else {
      const double sd = std::sqrt(var);
      r.p_less = NormalCdf((r.u - mean + 0.5) / sd);
      r.p_greater = 1 - NormalCdf((r.u - mean - 0.5) / sd);
    }
  }
  r.p_less = std::min(1.0, r.p_less);
  r.p_greater = std::min(1.0, r.p_greater);
  r.p = std::min(1.0, 2 * std::min(r.p_less, r.p_greater));
  return r;
}

double MannWhitneyP(const std::vector<double>& a, const std::vector<double>& b) {
  return MannWhitney(a, b).p;
}

double SmallestRankSumP(size_t m, size_t n) {
  if (m == 0 || n == 0) return 1;
  // log C(m+n, m) through lgamma: 2 / C overflows nothing and underflows only to 0.
  const double log_c =
      std::lgamma(double(m + n + 1)) - std::lgamma(double(m + 1)) - std::lgamma(double(n + 1));
  return std::min(1.0, 2 * std::exp(-log_c));
}

size_t RankSumCriticalK(size_t m, size_t n, double tail) {
  if (m == 0 || n == 0) return 0;
  if (m <= kExactSide && n <= kExactSide) {
    const std::vector<double>& cdf = NullCdf(m, n);
    // The first u with P(U <= u) above the tail; a relative slack so that 1/20 meets a tail
    // of (1 - 0.90) / 2 computed in binary.
    return size_t(std::upper_bound(cdf.begin(), cdf.end(), tail * (1 + 1e-9)) - cdf.begin());
  }
  // Normal approximation with continuity correction: P(U <= j) ~ Phi((j + 0.5 - mn/2) / sd).
  const double mean = double(m * n) / 2;
  const double sd = std::sqrt(double(m * n) * double(m + n + 1) / 12);
  const double z = boost::math::quantile(boost::math::normal(), tail);
  const double j = std::floor(mean + z * sd - 0.5);
  return j < 0 ? 0 : size_t(j) + 1;
}

}  // namespace storbed
