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

}  // namespace
}  // namespace storbed
