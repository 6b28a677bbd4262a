#include "history/night_spread.h"

#include <cmath>

#include "analysis/run_stats.h"
#include "reports/compare.h"
#include "reports/compare_metrics.h"

namespace storbed {

std::map<std::string, double> NightToNightNoise(
    const std::vector<std::vector<RunRecord>>& nights) {
  std::map<std::string, std::vector<double>> medians;  // per key, one per night
  for (const std::vector<RunRecord>& night : nights)
    for (const CompareMetric& m : CompareMetrics(night)) {
      if (m.direction == Better::None) continue;
      for (const auto& [cell, values] : ValuesByCell(night, m))
        medians[NoiseKey(cell, m.name)].push_back(Median(values));
    }
  std::map<std::string, double> out;
  for (const auto& [key, m] : medians) {
    const size_t n = m.size();
    // CoefficientOfVariation: s over |mean|, 0 for one night or a zero mean.
    if (n >= 2)
      out[key] = kNightSpreadFactor * CoefficientOfVariation(m) * std::sqrt(1 + 1.0 / double(n));
  }
  return out;
}

}  // namespace storbed
