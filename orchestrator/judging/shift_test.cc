#include "judging/shift.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "judging/rank_sum.h"

namespace storbed {
namespace {

std::vector<double> Scaled(const std::vector<double>& x, double by) {
  std::vector<double> out = x;
  for (double& v : out) v *= by;
  return out;
}

TEST(UnpairedShift, IsTheMedianOfThePairwiseLogRatios) {
  const std::vector<double> base = {100, 102, 98, 101, 99};
  const ShiftTest t = UnpairedShift(base, Scaled(base, 0.9), Band::FromNoise(0));
  EXPECT_NEAR(std::exp(t.shift), 0.9, 1e-12);  // every pair but the ties of order
  EXPECT_EQ(t.design, Design::Unpaired);
  EXPECT_EQ(t.n_base, 5u);
  ASSERT_TRUE(t.ci95);
  EXPECT_LT(t.ci95->low, t.shift);
  EXPECT_GT(t.ci95->high, t.shift);
  EXPECT_NEAR(t.smallest_p, 2.0 / 252, 1e-15);
}

// Effect, interval and test agree: a shift just outside the 95% interval is rejected at
// 5% by the same test, one just inside is not (no ties, so the inversion is exact).
TEST(UnpairedShift, IntervalIsTheInvertedRankTest) {
  const std::vector<double> base = {98.1, 101.3, 99.7, 103.2, 100.4, 97.6, 102.2};
  const std::vector<double> cand = {91.5, 94.2, 96.8, 92.9, 95.3, 97.1, 93.8};
  const ShiftTest t = UnpairedShift(base, cand, Band::FromNoise(0));
  ASSERT_TRUE(t.ci95);
  auto p_at = [&](double theta) {
    std::vector<double> lb, lc;
    for (double v : base) lb.push_back(std::log(v));
    for (double v : cand) lc.push_back(std::log(v) - theta);
    return MannWhitneyP(lc, lb);
  };
  const double eps = 1e-9;
  EXPECT_GT(p_at(t.ci95->low + eps), 0.05);
  EXPECT_LE(p_at(t.ci95->low - eps), 0.05);
  EXPECT_GT(p_at(t.ci95->high - eps), 0.05);
  EXPECT_LE(p_at(t.ci95->high + eps), 0.05);
}

TEST(UnpairedShift, NoIntervalWhereTheRunsCannotGiveOne) {
  const ShiftTest t = UnpairedShift({1, 2, 3}, {4, 5, 6}, Band::FromNoise(0.02));
  EXPECT_FALSE(t.ci95);  // 3 v 3: the smallest two-sided p is 0.1
  EXPECT_TRUE(t.ci90);   // P(U = 0) = 1/20 = 0.05: a 90% interval, just
  EXPECT_TRUE(UnpairedShift({1, 2, 3, 4}, {5, 6, 7, 8}, Band::FromNoise(0)).ci95);
}

// The band test: CAND 10% lower by every pair is far beyond a 2% band, but only 1% lower
// is inside it, so its p against the band is large though its p against 0 is small.
TEST(UnpairedShift, TestsAgainstTheBandEdges) {
  const std::vector<double> base = {100, 100.5, 99.5, 100.2, 99.8, 100.1, 99.9, 100.3};
  const ShiftTest far = UnpairedShift(base, Scaled(base, 0.9), Band::FromNoise(0.02));
  EXPECT_EQ(far.direction, -1);
  EXPECT_LT(far.p, 0.001);
  const ShiftTest near0 = UnpairedShift(base, Scaled(base, 0.99), Band::FromNoise(0));
  const ShiftTest near2 = UnpairedShift(base, Scaled(base, 0.99), Band::FromNoise(0.02));
  EXPECT_LT(near0.p, 0.01);
  EXPECT_GT(near2.p, 0.5);
}

// Regression: a base median of 0 was reported as a change with ratio 0.
TEST(UnpairedShift, RefusesValuesARatioCannotUse) {
  EXPECT_THROW(UnpairedShift({0, 1, 2}, {1, 2, 3}, Band{}), std::invalid_argument);
  EXPECT_THROW(UnpairedShift({1, 2, 3}, {-1, 2, 3}, Band{}), std::invalid_argument);
  EXPECT_THROW(UnpairedShift({std::numeric_limits<double>::quiet_NaN(), 1}, {1, 2}, Band{}),
               std::invalid_argument);
}

// Reference: scipy.stats.ttest_1samp(log(cand) - log(base), 0) (SciPy 1.10.1), its
// confidence_interval(0.95 | 0.90), and the band p as 2 min(ttest_1samp(d, log 0.98,
// alternative='less'), ttest_1samp(d, log 1.02, alternative='greater')).
TEST(PairedShift, IsThePairedTOnLogRatiosAndMatchesScipy) {
  const std::vector<double> b = {100, 104, 98, 101, 103, 99};
  const std::vector<double> c = {91, 95, 90, 93, 92, 89};
  const ShiftTest zero = PairedShift(b, c, Band::FromNoise(0));
  EXPECT_EQ(zero.design, Design::Paired);
  EXPECT_NEAR(zero.shift, -0.09532123510390485, 1e-12);
  EXPECT_NEAR(zero.p, 6.7612505103293605e-06, 1e-10);
  EXPECT_NEAR(zero.ci95->low, -0.10796945906913613, 1e-9);
  EXPECT_NEAR(zero.ci95->high, -0.08267301113867356, 1e-9);
  EXPECT_NEAR(zero.ci90->low, -0.10523602667181636, 1e-9);
  EXPECT_NEAR(zero.ci90->high, -0.08540644353599333, 1e-9);
  const ShiftTest band = PairedShift(b, c, Band::FromNoise(0.02));
  EXPECT_NEAR(band.p, 2.1867515838934436e-05, 1e-10);
  EXPECT_EQ(band.direction, -1);
  EXPECT_EQ(band.sigma_df, 5u);
}

// A round-wide slowdown multiplies both sides of the round: it cancels in the ratio.
TEST(PairedShift, ARoundEffectCancels) {
  const std::vector<double> round = {1, 2.1, 0.5, 1.3, 0.8};
  std::vector<double> b, c;
  for (size_t i = 0; i < round.size(); ++i) {
    b.push_back(100 * round[i] * (1 + 0.01 * double(i % 2)));
    c.push_back(90 * round[i] * (1 + 0.01 * double((i + 1) % 2)));
  }
  const ShiftTest t = PairedShift(b, c, Band::FromNoise(0.02));
  EXPECT_NEAR(std::exp(t.shift), 0.9, 0.01);
  EXPECT_LT(t.p, 0.001);
}

TEST(PairedShift, IdenticalRoundsUseTheSignFlipBound) {
  const ShiftTest t = PairedShift({100, 100, 100, 100, 100}, {90, 90, 90, 90, 90}, Band{});
  EXPECT_NEAR(t.p, 2 * std::pow(0.5, 5), 1e-15);
  EXPECT_EQ(t.ci95->low, t.ci95->high);
  EXPECT_THROW(PairedShift({1, 2}, {1, 2}, Band{}), std::invalid_argument);
}

}  // namespace
}  // namespace storbed
