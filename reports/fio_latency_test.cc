#include "reports/fio_latency.h"

#include <gtest/gtest.h>

#include <cmath>

namespace storbed {
namespace {

// 3 IOs in [1000, 1016) ns and 1 in [100000, 101024): keys 1008 and 100512.
LatencyHistogram TwoBuckets() {
  LatencyHistogram h;
  h.Add(1000, 16, 3);
  h.Add(100000, 1024, 1);
  return h;
}

// The agent's rule: the key of the bucket holding the ceil(q% x N)-th IO, clamped to the
// run's exact min and max (100500 ns here, inside the last bucket).
TEST(FioLatencyTest, PercentilesAreBinKeysByTheAgentsRankRuleClampedToMinAndMax) {
  LatencySummary s{4, 1.0, 26.0, 100.5, 1.0, 1.0, 100.5, 100.5};
  const auto o = FioLatency(s, TwoBuckets());
  const auto& p = o.at("percentile");
  ASSERT_EQ(p.size(), 17u);
  EXPECT_EQ(p.begin().key(), "1.000000");
  EXPECT_EQ(p.at("50.000000"), 1008);
  EXPECT_FALSE(p.contains("75.000000"));  // not one of fio's percentiles
  EXPECT_EQ(p.at("70.000000"), 1008);     // rank ceil(2.8) = 3: the first bucket
  EXPECT_EQ(p.at("80.000000"), 100500);   // rank ceil(3.2) = 4: the second, at max
  EXPECT_EQ(p.at("99.990000"), 100500);
}

TEST(FioLatencyTest, BinsHoldEveryBucketAtItsMiddleAndTheSummaryIsExact) {
  LatencySummary s{4, 1.0, 26.0, 100.5, 1.0, 1.0, 100.5, 100.5};
  const auto o = FioLatency(s, TwoBuckets());
  EXPECT_EQ(o.at("bins"), (nlohmann::ordered_json{{"1008", 3}, {"100512", 1}}));
  EXPECT_EQ(o.at("min"), 1000);
  EXPECT_EQ(o.at("max"), 100500);
  EXPECT_DOUBLE_EQ(o.at("mean").get<double>(), 26000.0);
  EXPECT_EQ(o.at("N"), 4);
}

TEST(FioLatencyTest, StddevIsTheSampleStddevOfTheBins) {
  LatencyHistogram h;
  h.Add(100, 1, 1);
  h.Add(300, 1, 1);
  // Mean 200; (100^2 + 100^2) / (2 - 1) = 20000.
  EXPECT_NEAR(HistogramStddevNs(h), std::sqrt(20000.0), 1e-9);
  LatencyHistogram one;
  one.Add(100, 1, 1);
  EXPECT_EQ(HistogramStddevNs(one), 0.0);
}

// Results from before the histogram: the summary only, no percentile or bins keys (fio
// leaves "bins" out of a direction without IOs, and fio_jsonplus_clat2csv skips it then).
TEST(FioLatencyTest, NoHistogramMeansNoPercentilesNoBinsAndZeroBuckets) {
  LatencySummary s{4, 1.0, 26.0, 100.5, 1.0, 1.0, 100.5, 100.5};
  const auto o = FioLatency(s, {});
  EXPECT_FALSE(o.contains("percentile"));
  EXPECT_FALSE(o.contains("bins"));
  EXPECT_EQ(o.at("stddev"), 0.0);
  const FioLatencyBuckets b = FioLatencyBucketsOf({});
  EXPECT_EQ(b.ns.size(), 10u);
  EXPECT_EQ(b.us.size(), 10u);
  EXPECT_EQ(b.ms.size(), 12u);
  for (const auto* o2 : {&b.ns, &b.us, &b.ms})
    for (const auto& [k, v] : o2->items()) EXPECT_EQ(v, 0.0) << k;
}

// fio's io_u_mark_lat_nsec/usec/msec: key "2" is [0, 2) of the unit, "4" is [2, 4), ...;
// from 1000 ns on the unit is us, from 1 ms on it is ms, and ms ends with ">=2000".
TEST(FioLatencyTest, LatencyBucketsFollowFiosRanges) {
  LatencyHistogram h;
  h.Add(1, 1, 1);              // 1 ns
  h.Add(999, 1, 1);            // 999 ns
  h.Add(1999, 1, 1);           // 1.999 us: us "2"
  h.Add(2000, 1, 1);           // 2 us: us "4"
  h.Add(1500000, 1, 1);        // 1.5 ms: ms "2"
  h.Add(1999000000, 1, 1);     // 1999 ms: ms "2000"
  h.Add(2500000000ull, 1, 1);  // 2.5 s: ms ">=2000"
  h.Add(2600000000ull, 1, 1);
  const FioLatencyBuckets b = FioLatencyBucketsOf(h);
  EXPECT_EQ(b.ns.at("2"), 12.5);
  EXPECT_EQ(b.ns.at("1000"), 12.5);
  EXPECT_EQ(b.us.at("2"), 12.5);
  EXPECT_EQ(b.us.at("4"), 12.5);
  EXPECT_EQ(b.ms.at("2"), 12.5);
  EXPECT_EQ(b.ms.at("2000"), 12.5);
  EXPECT_EQ(b.ms.at(">=2000"), 25.0);
  double sum = 0;
  for (const auto* o : {&b.ns, &b.us, &b.ms})
    for (const auto& [k, v] : o->items()) sum += v.get<double>();
  EXPECT_DOUBLE_EQ(sum, 100.0);
}

// A corrupt record (results.json is user input to `storbed report`) must not make a
// double-to-integer conversion undefined.
TEST(FioLatencyTest, RoundingSaturatesInsteadOfOverflowing) {
  EXPECT_EQ(FioRound(2.5), 3u);
  EXPECT_EQ(FioRound(-7), 0u);
  EXPECT_EQ(FioRound(std::nan("")), 0u);
  EXPECT_EQ(FioRound(1e300), UINT64_MAX);
  EXPECT_EQ(FioRound(std::ldexp(1.0, 64)), UINT64_MAX);
  LatencySummary s{UINT64_MAX, -1.0, 1e300, 1e300, 0, 0, 0, 0};
  LatencyHistogram h;
  h.Add(1000, 16, UINT64_MAX);
  const auto o = FioLatency(s, h);
  EXPECT_EQ(o.at("min"), 0);
  EXPECT_EQ(o.at("max"), UINT64_MAX);
  EXPECT_EQ(o.at("percentile").at("99.990000"), 1008);
}

TEST(FioLatencyTest, AnUnmeasuredLatencyIsFiosZeroObject) {
  EXPECT_EQ(FioZeroLatency().dump(), R"({"min":0,"max":0,"mean":0.0,"stddev":0.0,"N":0})");
}

}  // namespace
}  // namespace storbed
