#include "analysis/run_stats.h"

#include <gtest/gtest.h>

namespace storbed {
namespace {

// Reference values computed independently with SciPy 1.10.1 (Debian 12's python3-scipy):
//   scipy.stats.mannwhitneyu(a, b, method='exact' | 'asymptotic', use_continuity=True,
//                            alternative='two-sided').pvalue
//   z = norm.ppf(1 - 0.01/2) + norm.ppf(0.8); ceil(2 * (z * cv / change)**2)
//   numpy.median(v); numpy.std(v, ddof=1) / numpy.mean(v)

TEST(RunStatsTest, MedianAndCoefficientOfVariation) {
  const std::vector<double> v = {3, 1, 4, 1, 5, 9, 2, 6};
  EXPECT_DOUBLE_EQ(Median(v), 3.5);
  EXPECT_DOUBLE_EQ(Median({7, 1, 3}), 3);
  EXPECT_NEAR(CoefficientOfVariation(v), 0.7092583597261195, 1e-12);
  EXPECT_EQ(CoefficientOfVariation({5}), 0);
}

TEST(RunStatsTest, ExactMannWhitneyMatchesScipy) {
  EXPECT_NEAR(MannWhitneyP({10.2, 11.5, 9.8, 12.1, 10.9}, {13.0, 12.6, 14.1, 13.5, 12.9}),
              0.007936507936507936, 1e-12);
  EXPECT_NEAR(MannWhitneyP({1, 2, 3, 4}, {5, 6, 7}), 0.05714285714285714, 1e-12);
  EXPECT_NEAR(MannWhitneyP({1.1, 2.2, 3.3, 4.4, 5.5, 6.6},
                           {3.05, 4.05, 5.05, 6.05, 7.05, 8.05, 9.05}),
              0.13752913752913754, 1e-12);
  std::vector<double> x, y;
  for (int v = 1; v <= 20; ++v) x.push_back(v);
  for (int v = 5; v <= 24; ++v) y.push_back(v + 0.5);
  EXPECT_NEAR(MannWhitneyP(x, y), 0.030411256038764864, 1e-9);
  // The test is symmetric in its sides.
  EXPECT_NEAR(MannWhitneyP(y, x), 0.030411256038764864, 1e-9);
}

TEST(RunStatsTest, TiedMannWhitneyUsesTheCorrectedNormalApproximation) {
  EXPECT_NEAR(MannWhitneyP({1, 2, 2, 3, 3, 3, 4}, {3, 4, 4, 5, 5, 6}), 0.012999854364387305,
              1e-9);
  EXPECT_DOUBLE_EQ(MannWhitneyP({5, 5, 5}, {5, 5, 5}), 1.0);
}

TEST(RunStatsTest, RunsToResolveAndSmallestChange) {
  EXPECT_EQ(RunsToResolve(0.05, 0.02, 0.01), 146u);
  EXPECT_EQ(RunsToResolve(0.001, 0.02, 0.01), 3u);  // never fewer than 3
  EXPECT_NEAR(SmallestDetectableChange(0.05, 5, 5, 0.01), 0.10806927488270744, 1e-9);
}

TEST(RunStatsTest, BootstrapIsSeededAndBracketsTheMedian) {
  const std::vector<double> x = {98, 101, 99, 103, 100, 97, 102};
  const Interval a = BootstrapMedianCi(x, 0.95, 7);
  const Interval b = BootstrapMedianCi(x, 0.95, 7);
  EXPECT_EQ(a.low, b.low);
  EXPECT_EQ(a.high, b.high);
  EXPECT_LE(a.low, 100);
  EXPECT_GE(a.high, 100);
  EXPECT_GE(a.low, 97);
  EXPECT_LE(a.high, 103);
}

TEST(RunStatsTest, RatioIntervalContainsTheRatioOfMedians) {
  const std::vector<double> base = {100, 101, 99, 100, 102, 98};
  const std::vector<double> cand = {110, 111, 109, 110, 112, 108};
  const auto ci = BootstrapRatioCi(base, cand, 0.95, 1);
  ASSERT_TRUE(ci);
  EXPECT_LT(ci->low, 1.1);
  EXPECT_GT(ci->high, 1.1);
  EXPECT_GT(ci->low, 1.05);
  EXPECT_FALSE(BootstrapRatioCi({0, 0, 0}, cand, 0.95, 1));
}

}  // namespace
}  // namespace storbed
