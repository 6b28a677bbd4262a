#include "history/change_points.h"

#include "analysis/run_stats.h"

namespace storbed {

std::vector<ChangePoint> FindChangePoints(const std::vector<std::vector<double>>& nights,
                                          const ChangePointOptions& options) {
  std::vector<double> levels;
  std::vector<size_t> night_of;  // the night of each level
  for (size_t i = 0; i < nights.size(); ++i) {
    if (nights[i].empty()) continue;
    levels.push_back(Median(nights[i]));
    night_of.push_back(i);
  }
  std::vector<ChangePoint> out;
  for (const LevelChange& c : FindLevelChanges(levels, options))
    out.push_back({night_of[c.index], c.before, c.after, c.ratio, c.p});
  return out;
}

}  // namespace storbed
