#include "analysis/run_stats.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace storbed {

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

}  // namespace storbed
