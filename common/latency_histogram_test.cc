#include "latency_histogram.h"

#include <gtest/gtest.h>

namespace storbed {
namespace {

// 10 IOs at 1-2 us, 89 at 10-12 us, 1 at 1000-1064 us.
LatencyHistogram Sample() {
  LatencyHistogram h;
  h.Add(1000, 1000, 10);
  h.Add(10000, 2000, 89);
  h.Add(1000000, 64000, 1);
  return h;
}

TEST(LatencyHistogramTest, RoundTripsThroughJson) {
  const LatencyHistogram h = Sample();
  const nlohmann::json j = h;
  const auto back = j.get<LatencyHistogram>();
  EXPECT_EQ(back.low_ns, h.low_ns);
  EXPECT_EQ(back.width_ns, h.width_ns);
  EXPECT_EQ(back.count, h.count);
  EXPECT_EQ(back.Total(), 100u);
}

TEST(LatencyHistogramTest, ArraysOfDifferentLengthsAreAnError) {
  const auto j = nlohmann::json::parse(R"({"low_ns": [1, 2], "width_ns": [1], "count": [3, 4]})");
  EXPECT_THROW(j.get<LatencyHistogram>(), std::invalid_argument);
}

TEST(LatencyHistogramTest, PercentilesAreTheMiddleOfTheBucketHoldingTheRank) {
  const LatencyHistogram h = Sample();
  EXPECT_DOUBLE_EQ(HistogramPercentileUs(h, 5), 1.5);    // rank 5 of 100: first bucket
  EXPECT_DOUBLE_EQ(HistogramPercentileUs(h, 50), 11.0);  // 10000 + 2000/2 ns
  EXPECT_DOUBLE_EQ(HistogramPercentileUs(h, 99), 11.0);  // rank 99: still the second
  EXPECT_DOUBLE_EQ(HistogramPercentileUs(h, 99.9), 1032.0);
  EXPECT_DOUBLE_EQ(HistogramPercentileUs(LatencyHistogram{}, 50), 0.0);
}

// Merging then taking the median is not the median of the runs' medians: run a has 3 IOs
// at 1 us, run b 1 IO at 100 us; all 4 IOs have their median at 1 us.
TEST(LatencyHistogramTest, MergedRepeatsGivePercentilesOfAllTheirIos) {
  LatencyHistogram a, b;
  a.Add(1000, 1, 3);
  b.Add(100000, 1, 1);
  b.Add(1000, 1, 0);
  const LatencyHistogram all = MergeHistograms({&b, &a});
  ASSERT_EQ(all.low_ns, (std::vector<uint64_t>{1000, 100000}));  // ascending, empties gone
  EXPECT_EQ(all.count, (std::vector<uint64_t>{3, 1}));
  EXPECT_NEAR(HistogramPercentileUs(all, 50), 1.0, 1e-3);
  EXPECT_NEAR(HistogramPercentileUs(all, 100), 100.0, 1e-3);
}

TEST(LatencyHistogramTest, TheCdfStartsAtZeroAndEndsAtAHundredPercent) {
  const auto cdf = HistogramCdf(Sample());
  ASSERT_EQ(cdf.size(), 4u);
  EXPECT_DOUBLE_EQ(cdf[0].first, 1.0);
  EXPECT_DOUBLE_EQ(cdf[0].second, 0.0);
  EXPECT_DOUBLE_EQ(cdf[1].first, 2.0);
  EXPECT_DOUBLE_EQ(cdf[1].second, 10.0);
  EXPECT_DOUBLE_EQ(cdf[2].second, 99.0);
  EXPECT_DOUBLE_EQ(cdf[3].first, 1064.0);
  EXPECT_DOUBLE_EQ(cdf[3].second, 100.0);
  EXPECT_TRUE(HistogramCdf(LatencyHistogram{}).empty());
}

}  // namespace
}  // namespace storbed
