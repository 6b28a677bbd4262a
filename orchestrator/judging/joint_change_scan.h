// A step that every series of a group shows at the same index: in a lab, a change that every
// host sees the same night came with the suite (QEMU, kernel, storbed). Each host's own scan
// (change_scan.h) must find such a step alone, among every split of its nights, so a lab of
// H hosts names it only when all H scans do (about 0.95^H for a clear step). Here the hosts
// are read together, in two stages:
//
// 1. The joint scan: each series' levels are logged and winsorized as change_scan does, and
//    scaled by their own spread, so each host weighs alike whatever its noise. Every split
//    is rated by the sum over series of each one's standardized split statistic (its
//    levels after the split against before), divided by sqrt(series); the maximum is
//    calibrated by permuting the index axis, the same permutation for every series, so a
//    night's shared conditions move together. Its p-value (exact through the prefix sets
//    up to kExactJointNights, else drawn) says that some series moved there, not that all
//    did: one host's large step alone reaches it.
// 2. Every series' own step (an intersection-union test): series h is tested at the split
//    the other series place the step (the best split of their joint sum, which does not
//    read h's levels), one-sided in their direction, by its own levels' permutations (exact
//    below kExactSubsets subsets). A joint step is every series' only when each of them has
//    p <= series_p there and that split lies within `within` of the joint scan's. A series
//    that did not move passes that with chance at most series_p, independently of where the
//    others placed the step, so a step of all but one host is called every host's with
//    chance at most series_p, and a step of one host alone with chance at most series_p^2
//    (for three hosts).
//
// Binary segmentation as change_scan: a segment whose joint scan has p <= max_p is cut
// there and each piece is scanned again; the cut is reported only when stage 2 holds and the
// series' segment medians differ by at least min_change (the median over series).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace storbed {

struct JointScanOptions {
  double max_p = 0.01;         // the joint scan's level (as ChangeScanOptions::max_p)
  double series_p = 0.05;      // each series' own one-sided step at the others' split
  size_t min_nights = 2;       // of every series on each side of a split
  double min_change = 0.05;    // the median over series of |after / before - 1|
  size_t within = 1;           // the others' split is at most this far from the joint one
  size_t permutations = 2000;  // drawn above kExactJointNights (smallest p 1/2001)
  uint64_t seed = 1;
};

// Up to this many indices the joint scan's p is exact (every ordering, through the 2^n
// prefix sets); a series' own test is exact up to kExactSubsets splits of its levels.
inline constexpr size_t kExactJointNights = 14;
inline constexpr size_t kExactSubsets = 20000;

struct JointStep {
  size_t index = 0;              // the first index at the new level
  double p = 1;                  // of the joint scan that cut there
  std::vector<double> ratios;    // per series: median after / median before, in its segment
  std::vector<double> series_p;  // per series: its own one-sided p at the others' split
};

// The steps every series of `levels` (levels[series][index]; NaN where a series has no
// level at that index) shows at once, in index order. Fewer than 2 series: none. A level
// that is infinite: std::invalid_argument.
std::vector<JointStep> FindJointSteps(const std::vector<std::vector<double>>& levels,
                                      const JointScanOptions& options = {});

}  // namespace storbed
