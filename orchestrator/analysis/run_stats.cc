#include "analysis/run_stats.h"

#include <algorithm>
#include <boost/math/distributions/normal.hpp>
#include <cmath>
#include <map>
#include <numeric>
#include <random>
#include <stdexcept>

namespace storbed {
namespace {

// The p-quantile of sorted values, linear between ranks (as numpy's default).
double Quantile(const std::vector<double>& sorted, double p) {
  const double pos = p * double(sorted.size() - 1);
  const size_t lo = size_t(std::floor(pos));
  const size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (pos - double(lo)) * (sorted[hi] - sorted[lo]);
}

// One bootstrap resample's median. rng() % n rather than a distribution object, whose
// algorithm differs between standard libraries: a seed gives the same report everywhere.
double ResampledMedian(const std::vector<double>& x, std::mt19937_64& rng,
                       std::vector<double>& scratch) {
  scratch.resize(x.size());
  for (double& v : scratch) v = x[rng() % x.size()];
  return Median(scratch);
}

Interval PercentileInterval(std::vector<double> estimates, double level) {
  std::sort(estimates.begin(), estimates.end());
  const double tail = (1 - level) / 2;
  return {Quantile(estimates, tail), Quantile(estimates, 1 - tail)};
}

// The number of orderings of m and n values (no ties) for each U = 0 .. m*n: the
// coefficients of the Gaussian binomial [m+n choose m] = prod (1 - q^(n+i)) / (1 - q^i).
std::vector<long double> UCounts(size_t m, size_t n) {
  std::vector<long double> c(m * n + 1, 0);
  c[0] = 1;
  for (size_t i = 1; i <= m; ++i) {
    for (size_t j = c.size(); j-- > n + i;) c[j] -= c[j - n - i];  // times (1 - q^(n+i))
    for (size_t j = i; j < c.size(); ++j) c[j] += c[j - i];         // over (1 - q^i)
  }
  return c;
}

double NormalUpperTail(double z) {
  return boost::math::cdf(boost::math::complement(boost::math::normal(), z));
}

double NormalQuantile(double p) { return boost::math::quantile(boost::math::normal(), p); }

}  // namespace

double Median(std::vector<double> x) {
  if (x.empty()) throw std::invalid_argument("median of no values");
  const size_t mid = x.size() / 2;
  std::nth_element(x.begin(), x.begin() + mid, x.end());
  if (x.size() % 2) return x[mid];
  const double upper = x[mid];
  return (upper + *std::max_element(x.begin(), x.begin() + mid)) / 2;
}

double CoefficientOfVariation(const std::vector<double>& x) {
  if (x.size() < 2) return 0;
  const double mean = std::accumulate(x.begin(), x.end(), 0.0) / double(x.size());
  if (mean == 0) return 0;
  double ss = 0;
  for (double v : x) ss += (v - mean) * (v - mean);
  return std::sqrt(ss / double(x.size() - 1)) / std::fabs(mean);
}

Interval BootstrapMedianCi(const std::vector<double>& x, double level, uint64_t seed,
                           int resamples) {
  if (x.empty()) throw std::invalid_argument("bootstrap of no values");
  std::mt19937_64 rng(seed);
  std::vector<double> estimates, scratch;
  estimates.reserve(size_t(resamples));
  for (int i = 0; i < resamples; ++i) estimates.push_back(ResampledMedian(x, rng, scratch));
  return PercentileInterval(std::move(estimates), level);
}

std::optional<Interval> BootstrapRatioCi(const std::vector<double>& base,
                                         const std::vector<double>& cand, double level,
                                         uint64_t seed, int resamples) {
  if (base.empty() || cand.empty()) throw std::invalid_argument("bootstrap of no values");
  std::mt19937_64 rng(seed);
  std::vector<double> estimates, scratch;
  estimates.reserve(size_t(resamples));
  for (int i = 0; i < resamples; ++i) {
    const double b = ResampledMedian(base, rng, scratch);
    const double c = ResampledMedian(cand, rng, scratch);
    if (b == 0) return std::nullopt;
    estimates.push_back(c / b);
  }
  return PercentileInterval(std::move(estimates), level);
}

double MannWhitneyP(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.empty() || b.empty()) throw std::invalid_argument("Mann-Whitney of an empty side");
  const size_t m = a.size(), n = b.size();
  double u = 0;  // pairs where a's value is larger, ties counting one half
  for (double x : a)
    for (double y : b) u += x > y ? 1 : x == y ? 0.5 : 0;
  std::map<double, size_t> counts;
  for (double x : a) ++counts[x];
  for (double y : b) ++counts[y];
  double tie_term = 0;
  for (const auto& [value, t] : counts) tie_term += double(t) * double(t) * double(t) - double(t);
  if (tie_term == 0 && m <= 50 && n <= 50) {
    const std::vector<long double> c = UCounts(m, n);
    const long double total = std::accumulate(c.begin(), c.end(), 0.0L);
    const size_t k = size_t(std::llround(std::max(u, double(m * n) - u)));
    long double upper = 0;  // P(U >= k) for the larger of U and mn - U
    for (size_t j = k; j < c.size(); ++j) upper += c[j];
    return double(std::min(1.0L, 2 * upper / total));
  }
  const double total = double(m + n);
  const double mean = double(m * n) / 2;
  const double var =
      double(m * n) / 12 * ((total + 1) - tie_term / (total * (total - 1)));
  if (var <= 0) return 1;
  const double z = (std::fabs(u - mean) - 0.5) / std::sqrt(var);
  return std::min(1.0, 2 * NormalUpperTail(std::max(z, 0.0)));
}

uint32_t RunsToResolve(double cv, double change, double alpha, double power) {
  if (change <= 0) throw std::invalid_argument("change to resolve must be positive");
  const double z = NormalQuantile(1 - alpha / 2) + NormalQuantile(power);
  const double n = std::ceil(2 * std::pow(z * cv / change, 2));
  return uint32_t(std::max(3.0, std::min(n, 1e6)));
}

double SmallestDetectableChange(double cv, size_t n_base, size_t n_cand, double alpha,
                                double power) {
  if (n_base == 0 || n_cand == 0) throw std::invalid_argument("no runs on a side");
  const double z = NormalQuantile(1 - alpha / 2) + NormalQuantile(power);
  return z * cv * std::sqrt(1.0 / double(n_base) + 1.0 / double(n_cand));
}

}  // namespace storbed
