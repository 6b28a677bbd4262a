#include "judging/median_interval.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace storbed {

std::optional<MedianInterval> MedianIntervalOf(std::vector<double> x, double level) {
  for (double v : x)
    if (!std::isfinite(v))
      throw std::invalid_argument("a median interval of a value that is not finite");
  const size_t n = x.size();
  if (n == 0) return std::nullopt;
  // P(Binomial(n, 1/2) <= j), accumulated from j = 0 upwards.
  const double tail = (1 - level) / 2 * (1 + 1e-9);
  double cdf = 0, term = std::pow(0.5, double(n));  // P(B = 0)
  size_t k = 0;
  for (size_t j = 0; j < n; ++j) {
    cdf += term;
    if (cdf > tail) break;
    k = j + 1;
    term *= double(n - j) / double(j + 1);
  }
  if (k == 0) return std::nullopt;
  std::sort(x.begin(), x.end());
  double below = 0;  // P(B <= k - 1)
  term = std::pow(0.5, double(n));
  for (size_t j = 0; j < k; ++j) {
    below += term;
    term *= double(n - j) / double(j + 1);
  }
  return MedianInterval{x[k - 1], x[n - k], 1 - 2 * below};
}

}  // namespace storbed
