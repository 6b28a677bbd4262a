#include "history/night_spread.h"

#include <cmath>

#include "analysis/run_stats.h"
#include "reports/cells.h"
#include "reports/compare.h"
#include "reports/compare_metrics.h"

namespace storbed {

std::map<std::string, double> NightToNightNoise(
    const std::vector<std::vector<RunRecord>>& nights) {
  std::map<std::string, std::vector<double>> medians;  // per key, one per night
  for (const std::vector<RunRecord>& night : nights) {
    std::map<std::string, std::vector<double>> values;
    for (const CompareMetric& m : CompareMetrics(night)) {
      if (m.direction == Better::None) continue;
      for (const RunRecord& r : night)
        if (r.status == RunStatus::Ok && r.result)
          if (const auto v = m.value(r)) values[NoiseKey(CellOf(r), m.name)].push_back(*v);
    }
    for (const auto& [key, v] : values) medians[key].push_back(Median(v));
  }
  std::map<std::string, double> out;
  for (const auto& [key, m] : medians) {
    const size_t n = m.size();
    if (n < 2) continue;
    double mean = 0;
    for (double v : m) mean += v;
    mean /= double(n);
    if (mean == 0) continue;
    double ss = 0;
    for (double v : m) ss += (v - mean) * (v - mean);
    const double s = std::sqrt(ss / double(n - 1));
    out[key] = kNightSpreadFactor * s * std::sqrt(1 + 1.0 / double(n)) / std::fabs(mean);
  }
  return out;
}

}  // namespace storbed
