#include "inflight_stats.h"

#include <gtest/gtest.h>

namespace storbed {
namespace {

TEST(InflightStats, SamplesGiveShareMedianP99AndMax) {
  // 90 samples at 4, 10 at 2: the median and p99 are 4, the max 4, 10% at 2.
  std::vector<double> counts(90, 4.0);
  counts.insert(counts.end(), 10, 2.0);
  const InflightDistribution d = DistributionOfSamples(counts);
  ASSERT_TRUE(d.available);
  EXPECT_FALSE(d.exact);
  EXPECT_EQ(d.samples, 100u);
  EXPECT_EQ(d.p50, 4);
  EXPECT_EQ(d.p99, 4);
  EXPECT_EQ(d.max, 4);
  EXPECT_NEAR(d.share[2], 0.10, 1e-12);
  EXPECT_NEAR(d.ShareAbove(3), 0.90, 1e-12);
  EXPECT_NEAR(d.ShareAbove(4), 0.0, 1e-12);
}

TEST(InflightStats, TimeAtCountIsExactAndWeightedByTime) {
  // 1 s idle, 3 s at one IO: p50 is 1, the share above 0 is 75%.
  const InflightDistribution d = DistributionOfTime({1e9, 3e9});
  ASSERT_TRUE(d.available);
  EXPECT_TRUE(d.exact);
  EXPECT_EQ(d.p50, 1);
  EXPECT_EQ(d.max, 1);
  EXPECT_NEAR(d.ShareAbove(0), 0.75, 1e-12);
}

TEST(InflightStats, NoSamplesGiveNoDistribution) {
  EXPECT_FALSE(DistributionOfSamples({}).available);
  EXPECT_FALSE(DistributionOfTime({0, 0}).available);
}

TEST(InflightStats, IntervalOfConstantSamplesIsZeroAndOfOneSampleMissing) {
  const MeanInterval flat = MeanInterval95(std::vector<double>(20, 3.0));
  ASSERT_TRUE(flat.available);
  EXPECT_EQ(flat.mean, 3.0);
  EXPECT_EQ(flat.half_width, 0.0);
  EXPECT_FALSE(MeanInterval95({1.0}).available);
}

TEST(InflightStats, IntervalOfSparseZeroOneSamplesIsWide) {
  // The virtqueue rung: 20 samples of 0 or 1 with mean 0.3. The interval must be
  // a sizeable part of the mean, not the naive 0.0x a blind sd/sqrt(n) of 1000 would give.
  std::vector<double> s;
  for (int i = 0; i < 20; ++i) s.push_back(i % 10 < 3 ? 1.0 : 0.0);
  const MeanInterval m = MeanInterval95(s);
  ASSERT_TRUE(m.available);
  EXPECT_NEAR(m.mean, 0.3, 1e-12);
  EXPECT_GT(m.half_width, 0.1);
  EXPECT_LT(m.half_width, 0.5);
  EXPECT_EQ(m.samples, 20u);
}

TEST(InflightStats, SlowlyMovingSamplesGetAWiderIntervalThanShuffledOnes) {
  // Same values, once in two long runs (correlated), once alternating: batch means see
  // the correlation, so the first interval is wider.
  std::vector<double> runs, alternating;
  for (int i = 0; i < 100; ++i) runs.push_back(i < 50 ? 0.0 : 2.0);
  for (int i = 0; i < 100; ++i) alternating.push_back(i % 2 ? 2.0 : 0.0);
  EXPECT_GT(MeanInterval95(runs).half_width, 5 * MeanInterval95(alternating).half_width);
}

}  // namespace
}  // namespace storbed
