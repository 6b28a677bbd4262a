// Simulated nightly levels with a known truth, for the change-point tests and
// storbed-calibrate change-points: `nights` nights of `runs` lognormal runs (coefficient of
// variation `cv`) around a level that steps by `steps` (night, factor: the level from that
// night on), each night's level also moved by a lognormal factor of CV `drift`
// (night-to-night drift), optionally one random bad night at half its level. A night's
// level is the median of its runs, as the history takes it.
#pragma once

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "judging/change_scan.h"
#include "judging/seeded_draws.h"

namespace storbed::testing_support {

struct Truth {
  size_t nights = 30, runs = 1;
  double cv = 0.05, drift = 0;
  std::vector<std::pair<size_t, double>> steps;  // (first night, level from there on)
  bool bad_night = false;                        // one random night at half its level
};

inline double LogSd(double cv) { return std::sqrt(std::log1p(cv * cv)); }

inline std::vector<double> Levels(const Truth& t, SeededDraws& d) {
  std::vector<double> levels;
  for (size_t night = 0; night < t.nights; ++night) {
    double level = 1000;
    for (const auto& [from, factor] : t.steps)
      if (night >= from) level = 1000 * factor;
    if (t.drift > 0) level *= std::exp(LogSd(t.drift) * d.Normal());
    std::vector<double> runs;
    for (size_t r = 0; r < t.runs; ++r) runs.push_back(level * std::exp(LogSd(t.cv) * d.Normal()));
    std::sort(runs.begin(), runs.end());
    const size_t h = runs.size() / 2;
    levels.push_back(runs.size() % 2 ? runs[h] : (runs[h - 1] + runs[h]) / 2);
  }
  if (t.bad_night) levels[d.Below(levels.size())] *= 0.5;
  return levels;
}

// A change within one night of `night`.
inline bool FoundNear(const std::vector<LevelChange>& changes, size_t night) {
  return std::any_of(changes.begin(), changes.end(), [&](const LevelChange& c) {
    return c.index + 1 >= night && c.index <= night + 1;
  });
}

}  // namespace storbed::testing_support
