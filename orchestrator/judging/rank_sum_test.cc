#include "judging/rank_sum.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace storbed {
namespace {

// Reference values from SciPy 1.10.1 (Debian 12's python3-scipy), computed offline:
//   without ties: scipy.stats.mannwhitneyu(a, b, method='exact', alternative=...).pvalue
//   with ties, the exact permutation distribution conditional on the ties:
//     scipy.stats.permutation_test((a, b), U, permutation_type='independent',
//                                  n_resamples=numpy.inf, alternative=...).pvalue
//     with U = mannwhitneyu(a, b, axis=axis).statistic (every split enumerated)
//   beyond the exact range: mannwhitneyu(a, b, method='asymptotic') (tie and continuity
//   corrected).

TEST(MannWhitney, WithoutTiesIsExactAndMatchesScipy) {
  const RankSumResult r = MannWhitney({1.1, 2.2, 3.3, 4.4, 5.5}, {6.1, 7.2, 8.3, 9.4, 10.5});
  EXPECT_TRUE(r.exact);
  EXPECT_EQ(r.u, 0);
  EXPECT_NEAR(r.p, 0.007936507936507936, 1e-12);
  EXPECT_NEAR(r.p_less, 0.003968253968253968, 1e-12);
  EXPECT_NEAR(r.p_greater, 1.0, 1e-12);
  EXPECT_NEAR(MannWhitneyP({3.1, 5.2, 1.3, 9.4, 7.5, 2.6}, {4.7, 8.8, 6.9, 10.1, 11.2}),
              0.12554112554112554, 1e-12);
  const RankSumResult s =
      MannWhitney({10, 11, 12.5, 13, 9.5, 8.1, 14.2}, {12.1, 13.3, 15.5, 16.2, 11.7, 17.1, 14.9});
  EXPECT_NEAR(s.p, 0.026223776223776224, 1e-12);
  EXPECT_NEAR(s.p_less, 0.013111888111888112, 1e-12);
  EXPECT_NEAR(MannWhitneyP({1, 2, 3, 4}, {5, 6, 7}), 0.05714285714285714, 1e-12);
  std::vector<double> x, y;
  for (int v = 1; v <= 20; ++v) x.push_back(v);
  for (int v = 5; v <= 24; ++v) y.push_back(v + 0.5);
  EXPECT_NEAR(MannWhitneyP(x, y), 0.030411256038764864, 1e-9);
  EXPECT_NEAR(MannWhitneyP(y, x), 0.030411256038764864, 1e-9);  // symmetric in its sides
}

// Regression: with ties the p-value came from the normal approximation at any n, 0.0130
// for this case (scipy's asymptotic value), where the exact conditional p is 0.01515.
TEST(MannWhitney, WithTiesIsTheExactPermutationPConditionalOnTheTies) {
  const RankSumResult r = MannWhitney({1, 2, 2, 3, 3, 3, 4}, {3, 4, 4, 5, 5, 6});
  EXPECT_TRUE(r.exact);
  EXPECT_NEAR(r.p, 0.015151515151515152, 1e-12);
  const RankSumResult b = MannWhitney({100, 100, 102, 104, 100}, {104, 106, 106, 104, 108});
  EXPECT_NEAR(b.p, 0.023809523809523808, 1e-12);
  EXPECT_NEAR(b.p_less, 0.011904761904761904, 1e-12);
  EXPECT_NEAR(b.p_greater, 1.0, 1e-12);
  const RankSumResult c = MannWhitney({50, 52, 52, 52, 55}, {52, 55, 55, 57, 57});
  EXPECT_NEAR(c.p, 0.10317460317460317, 1e-12);
  EXPECT_NEAR(c.p_greater, 0.996031746031746, 1e-12);
  EXPECT_NEAR(MannWhitneyP({8, 8, 8, 9, 9, 10}, {9, 10, 10, 10, 11, 11, 12}), 0.015151515151515152,
              1e-12);
  EXPECT_DOUBLE_EQ(MannWhitneyP({5, 5, 5}, {5, 5, 5}), 1.0);
}

TEST(MannWhitney, LargeTiedSamplesUseTheCorrectedNormalApproximation) {
  std::vector<double> a, b;
  for (int i = 0; i < 35; ++i) {
    a.push_back(double(i / 3));
    b.push_back(double(i / 3) + 2);
  }
  const RankSumResult r = MannWhitney(a, b);
  EXPECT_FALSE(r.exact);
  EXPECT_NEAR(r.p, 0.024801922396717548, 1e-9);
}

// Regression: a NaN as a side's first value gave p = 1, and the sides' order changed p.
TEST(MannWhitney, RefusesValuesThatAreNotFinite) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW(MannWhitney({nan, 1, 2}, {3, 4, 5}), std::invalid_argument);
  EXPECT_THROW(MannWhitney({1, 2}, {std::numeric_limits<double>::infinity()}),
               std::invalid_argument);
  EXPECT_THROW(MannWhitney({}, {1}), std::invalid_argument);
}

TEST(MannWhitney, SmallestPAndCriticalRank) {
  EXPECT_NEAR(SmallestRankSumP(5, 5), 2.0 / 252, 1e-15);
  EXPECT_NEAR(SmallestRankSumP(3, 3), 0.1, 1e-15);
  EXPECT_NEAR(SmallestRankSumP(4, 4), 2.0 / 70, 1e-15);
  EXPECT_DOUBLE_EQ(SmallestRankSumP(1, 1), 1.0);
  // 5 v 5: P(U <= 2) = 4/252 <= 0.025 < P(U <= 3) = 7/252, so k = 3 (R's qwilcox(0.025,
  // 5, 5) = 3 gives the same interval, achieved level 1 - 2 x 4/252 = 96.8%).
  EXPECT_EQ(RankSumCriticalK(5, 5, 0.025), 3u);
  EXPECT_EQ(RankSumCriticalK(3, 3, 0.025), 0u);  // 1/20 > 0.025: no 95% interval
  EXPECT_EQ(RankSumCriticalK(4, 4, 0.025), 1u);  // 1/70 <= 0.025 < 2/70
  // Beyond the exact range the normal form agrees with the exact count near 50 a side.
  const size_t exact = RankSumCriticalK(50, 50, 0.025);
  const size_t normal = RankSumCriticalK(51, 49, 0.025);
  EXPECT_NEAR(double(exact), double(normal), 3);
}

}  // namespace
}  // namespace storbed
