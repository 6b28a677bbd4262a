// Change points in a nightly series, in the spirit of Hunter/Otava: binary segmentation
// whose candidate splits are tested on the runs themselves, in a window of nights on each
// side (so a level that comes back, A B A, is two changes, not none). A night is a group
// of runs (its repeats); a change is where the runs after differ from the runs before.
#pragma once

#include <cstddef>
#include <vector>

namespace storbed {

struct ChangePoint {
  size_t night = 0;           // index of the first night at the new level
  double before = 0;          // median of the runs of the segment before
  double after = 0;           // median of the runs of the segment after
  double ratio = 0;           // after / before
  double p = 1;               // Mann-Whitney U, two-sided, runs before vs after
};

struct ChangePointOptions {
  double max_p = 0.001;    // a split is a change only at p <= this
  size_t min_nights = 2;   // each side of a split holds at least this many nights, so
                           // one outlier night at an end is never a change of level
  size_t window = 6;       // nights on each side of a candidate split that are compared
  double min_change = 0.05;  // and the medians differ by at least this share: on a shared
                             // or emulated host a level drifts by a few percent over an
                             // evening, and that drift is significant but no change
};

// Splits `nights` (each night's run values, in night order) where the runs of the windows
// before and after differ most (smallest p) among the splits whose medians differ by at
// least min_change, keeps the split when p <= max_p, and
// searches each side again. The levels reported are the windows' medians. Returns
// the changes in night order. Nights without runs count as nights but add no samples.
std::vector<ChangePoint> FindChangePoints(const std::vector<std::vector<double>>& nights,
                                          const ChangePointOptions& options = {});

}  // namespace storbed
