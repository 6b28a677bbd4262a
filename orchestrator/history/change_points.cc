#include "history/change_points.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "analysis/run_stats.h"

namespace storbed {
namespace {

std::vector<double> RunsOf(const std::vector<std::vector<double>>& nights, size_t from,
                           size_t to) {
  std::vector<double> out;
  for (size_t i = from; i < to; ++i) out.insert(out.end(), nights[i].begin(), nights[i].end());
  return out;
}

void Search(const std::vector<std::vector<double>>& nights, size_t from, size_t to,
            const ChangePointOptions& o, std::vector<ChangePoint>& found) {
  if (to - from < 2 * o.min_nights) return;
  std::optional<ChangePoint> best;
  for (size_t k = from + o.min_nights; k + o.min_nights <= to; ++k) {
    const std::vector<double> before = RunsOf(nights, k - std::min(k - from, o.window), k);
    const std::vector<double> after = RunsOf(nights, k, std::min(to, k + o.window));
    if (before.size() < 2 || after.size() < 2) continue;
    const double b = Median(before), a = Median(after);
    const double ratio = b != 0 ? a / b : 0;
    if (std::abs(ratio - 1) < o.min_change) continue;
    const double p = MannWhitneyP(before, after);
    if (!best || p < best->p) best = ChangePoint{k, b, a, ratio, p};
  }
  if (!best || best->p > o.max_p) return;
  found.push_back(*best);
  Search(nights, from, best->night, o, found);
  Search(nights, best->night, to, o, found);
}

}  // namespace

std::vector<ChangePoint> FindChangePoints(const std::vector<std::vector<double>>& nights,
                                          const ChangePointOptions& options) {
  std::vector<ChangePoint> found;
  Search(nights, 0, nights.size(), options, found);
  std::sort(found.begin(), found.end(),
            [](const ChangePoint& a, const ChangePoint& b) { return a.night < b.night; });
  return found;
}

}  // namespace storbed
