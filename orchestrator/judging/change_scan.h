// Change points in a series of nightly levels (each night's median, in night order): where
// the level moves, and how sure that is. The night is the unit: runs of one night share its
// conditions, so only the nights are exchangeable when nothing changed.
//
// One scan of a segment: each level is logged and the min_nights - 1 lowest and highest
// are pulled in to the next (so one bad night weighs like the next lowest, never like a
// level of its own); every split, and every interval inside the segment (a level that
// comes back, A B A), is rated by the standardized sum of its levels against the rest. The
// maximum of that scan is calibrated by permutation of the nights: its p-value is the share
// of orderings of the same nights whose scan reaches it. Up to kExactScanNights nights
// every ordering is counted (single splits only: there an interval inside cannot reach
// p <= 0.01 anyway, since its nights placed at either end rate as high); beyond,
// `permutations` seeded orderings are drawn and p = (1 + reached) / (1 + permutations);
// the draws stop once p cannot come to max_p (a segment without a change is decided after
// a few dozen), and p is then estimated from those drawn.
//
// Binary segmentation: a segment whose scan has p <= max_p is cut there (once for a split,
// twice for an interval inside) and each piece is scanned again. Then the minimum change:
// while a change's segments have medians less than min_change apart, the smallest such
// change is dropped and its neighbours merged. That filter only removes changes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace storbed {

struct ChangeScanOptions {
  double max_p = 0.01;         // a segment holds a change only at p <= this
  size_t min_nights = 2;       // every piece a cut leaves holds at least this many nights,
                               // so one odd night at an end is never a change of level
  double min_change = 0.05;    // and a change's medians differ by at least this share: a
                               // tight series finds a drift of 2% significant, not a change
  size_t permutations = 2000;  // orderings drawn above kExactScanNights (smallest p 1/2001)
  uint64_t seed = 1;           // of the draws, so a report reproduces
};

// Up to this many levels the scan's p is exact (10! orderings counted through their
// prefix sets, 2^10 of them).
inline constexpr size_t kExactScanNights = 10;

// An interval inside a segment counts at this share of its statistic: a single change is
// preferred where it explains the nights about as well, and a clean split is not matched by
// the same nights moved inside.
inline constexpr double kInteriorWeight = 0.8;

struct ScanResult {
  size_t begin = 0, end = 0;  // the levels [begin, end) differ most from the rest; a
                              // single split has begin 0 or end == size
  double p = 1;               // of the scan's maximum, over orderings of the levels
  bool exact = false;         // every ordering counted
};

// One scan of `levels`. Fewer than 2 * min_nights levels, or levels all alike: p 1. A
// level that is not finite: std::invalid_argument (also for FindLevelChanges).
ScanResult ScanLevels(const std::vector<double>& levels, const ChangeScanOptions& options = {});

struct LevelChange {
  size_t index = 0;   // the first level at the new level
  double before = 0;  // median of the levels of the segment before
  double after = 0;   // and of the segment after
  double ratio = 0;   // after / before (0 when before is 0)
  double p = 1;       // of the scan that cut there
};

// The share of the n! orderings of n items that have a prefix set (a nonempty proper one,
// as a mask: bit i for item i) that `reaches`: the exact p of a scan of splits, since a split
// reads only the set before it. `reaches` is called once per set, in increasing mask order,
// so a set's value can be built from the set without its lowest item, seen before it. The
// orderings are counted through the 2^n sets, not one by one; n at most 20.
double ShareOfOrderingsReaching(size_t n, const std::function<bool(size_t mask)>& reaches);

// The scores of `x`, summing to 0: its values with the `odd` lowest and highest pulled in to
// the next (winsorized), centred. A change needs min_nights nights, so min_nights - 1 odd
// nights a side are never a change and never hide one: a bad night at half the level scores
// like the next lowest night. The scores are a function of the values as a set, so
// permuting the nights permutes the scores and a permutation test on them stays exact.
std::vector<double> CentredScores(const std::vector<double>& x, size_t odd);

// `levels` logged when all are > 0 (a change is a ratio), else as they are. A level that is
// not finite: std::invalid_argument.
std::vector<double> LoggedLevels(const std::vector<double>& levels);

// The changes in `levels` (binary segmentation, then the minimum change), in order.
// Levels are logged when all are > 0; otherwise taken as they are.
std::vector<LevelChange> FindLevelChanges(const std::vector<double>& levels,
                                          const ChangeScanOptions& options = {});

}  // namespace storbed
