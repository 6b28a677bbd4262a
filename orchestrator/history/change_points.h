// Change points in a nightly series: the history's side of judging/change_scan. A night is
// a group of runs (its repeats); its level is their median, and the scan runs on the nights'
// levels, calibrated by permutation of the nights (judging/change_scan.h says how), so a
// night with many repeats weighs no more than a night with one.
#pragma once

#include <cstddef>
#include <vector>

#include "judging/change_scan.h"

namespace storbed {

struct ChangePoint {
  size_t night = 0;   // index of the first night at the new level
  double before = 0;  // median of the nights' medians of the segment before
  double after = 0;   // and of the segment after
  double ratio = 0;   // after / before
  double p = 1;       // of the scan of nights that cut there (permutation of the nights)
};

// max_p, min_nights, min_change, permutations, seed: judging/change_scan.h.
using ChangePointOptions = ChangeScanOptions;

// The changes in `nights` (each night's run values, in night order), in night order. Nights
// without runs count as nights for the index but add no level.
std::vector<ChangePoint> FindChangePoints(const std::vector<std::vector<double>>& nights,
                                          const ChangePointOptions& options = {});

}  // namespace storbed
