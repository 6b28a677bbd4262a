#include "analysis/run_stats.h"

#include <cmath>
#include <numeric>

namespace storbed {

double CoefficientOfVariation(const std::vector<double>& x) {
  if (x.size() < 2) return 0;
  const double mean = std::accumulate(x.begin(), x.end(), 0.0) / double(x.size());
  if (mean == 0) return 0;
  double ss = 0;
  for (double v : x) ss += (v - mean) * (v - mean);
  return std::sqrt(ss / double(x.size() - 1)) / std::fabs(mean);
}

}  // namespace storbed
