// The Mann-Whitney U (Wilcoxon rank-sum) test of two independent sets of runs. Exact where
// samples are small: the permutation distribution of the rank sum, conditional on the ties
// the values have (run metrics read from a histogram's buckets tie often), counted, never
// approximated. The normal approximation with tie and continuity correction only where it
// is accurate: larger samples.
#pragma once

#include <cstddef>
#include <vector>

namespace storbed {

struct RankSumResult {
  double u = 0;          // pairs (a_i, b_j) with a_i > b_j, a tie counting one half
  double p_less = 1;     // P(U <= u): evidence that a lies lower than b
  double p_greater = 1;  // P(U >= u): evidence that a lies higher
  double p = 1;          // two-sided: min(1, 2 min(p_less, p_greater))
  bool exact = false;    // counted from the permutation distribution
};

// Without ties, exact while both sides have at most this many values; with ties, exact
// while both sides together have at most kExactTiedTotal.
inline constexpr size_t kExactSide = 50, kExactTiedTotal = 60;

// a against b. Throws std::invalid_argument for an empty side or a value that is not a
// finite number.
RankSumResult MannWhitney(const std::vector<double>& a, const std::vector<double>& b);

// Two-sided p of MannWhitney(a, b).
double MannWhitneyP(const std::vector<double>& a, const std::vector<double>& b);

// The smallest two-sided p that m and n runs can give (no ties, complete separation):
// 2 / C(m + n, m), at most 1.
double SmallestRankSumP(size_t m, size_t n);

// For the interval that inverts the test: the largest k >= 1 with P(U <= k - 1) <= tail
// under the null without ties, or 0 when even P(U = 0) exceeds tail (no interval at that
// level from m and n runs). The pairwise differences' k-th smallest and k-th largest then
// bound a (1 - 2 tail) interval of the shift.
size_t RankSumCriticalK(size_t m, size_t n, double tail);

}  // namespace storbed
