#include "histogram.h"

#include <cstdint>
#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include <gtest/gtest.h>

namespace storbed {
namespace {

// Relative error the histogram promises for a reported percentile.
constexpr double kRelError = 0.02;

void ExpectNear(double expected, double actual) {
  EXPECT_NEAR(actual, expected, expected * kRelError) << "expected ~" << expected;
}

TEST(HistogramTest, EmptyReportsZeros) {
  Histogram h;
  EXPECT_EQ(h.count(), 0u);
  EXPECT_EQ(h.Percentile(50), 0u);
  EXPECT_EQ(h.min_ns(), 0u);
  const LatencySummary s = h.Summarize();
  EXPECT_EQ(s.count, 0u);
  EXPECT_EQ(s.p99_us, 0);
  EXPECT_EQ(s.max_us, 0);
}

TEST(HistogramTest, SingleValueIsEveryPercentile) {
  Histogram h;
  h.Record(123456789);
  for (double q : {0.0, 50.0, 99.9, 100.0}) EXPECT_EQ(h.Percentile(q), 123456789u);
  const LatencySummary s = h.Summarize();
  EXPECT_EQ(s.count, 1u);
  EXPECT_DOUBLE_EQ(s.min_us, 123456.789);
  EXPECT_DOUBLE_EQ(s.mean_us, 123456.789);
  EXPECT_DOUBLE_EQ(s.p50_us, 123456.789);
}

TEST(HistogramTest, BucketsTileTheRangeWithBoundedError) {
  // Every bucket starts where the previous one ends and is narrow relative to its start.
  uint64_t next = 0;
  for (int b = 0; b < Histogram::kBuckets; ++b) {
    ASSERT_EQ(Histogram::BucketLow(b), next) << "bucket " << b;
    if (Histogram::BucketLow(b) >= 128) {
      EXPECT_LE(double(Histogram::BucketWidth(b)) / double(Histogram::BucketLow(b)), 1.0 / 64);
    }
    next = Histogram::BucketLow(b) + Histogram::BucketWidth(b);
  }
  EXPECT_EQ(next, 0u) << "last bucket should end at 2^64 (wraps to 0)";
  for (uint64_t v : {uint64_t{0}, uint64_t{127}, uint64_t{128}, uint64_t{255}, uint64_t{256},
                     uint64_t{999999}, UINT64_MAX}) {
    const int b = Histogram::BucketOf(v);
    EXPECT_GE(v, Histogram::BucketLow(b));
    EXPECT_LE(v - Histogram::BucketLow(b), Histogram::BucketWidth(b) - 1);
  }
}

TEST(HistogramTest, UniformOneToTenThousandMicroseconds) {
  Histogram h;
  for (uint64_t us = 1; us <= 10000; ++us) h.Record(us * 1000);
  EXPECT_EQ(h.count(), 10000u);
  const LatencySummary s = h.Summarize();
  ExpectNear(5000, s.p50_us);
  ExpectNear(9000, s.p90_us);
  ExpectNear(9900, s.p99_us);
  ExpectNear(9990, s.p999_us);
  EXPECT_DOUBLE_EQ(s.min_us, 1);
  EXPECT_DOUBLE_EQ(s.max_us, 10000);
  EXPECT_DOUBLE_EQ(s.mean_us, 5000.5);
}

TEST(HistogramTest, ExponentialMatchesExactQuantiles) {
  std::mt19937_64 rng(7);
  std::exponential_distribution<double> dist(1.0 / 200000);  // mean 200 us
  std::vector<uint64_t> values;
  Histogram h;
  for (int i = 0; i < 100000; ++i) {
    const uint64_t v = uint64_t(dist(rng)) + 1;
    values.push_back(v);
    h.Record(v);
  }
  std::sort(values.begin(), values.end());
  for (double q : {50.0, 90.0, 99.0, 99.9}) {
    const uint64_t exact = values[size_t(std::ceil(q / 100 * values.size())) - 1];
    ExpectNear(double(exact), double(h.Percentile(q)));
  }
}

// Short latencies into `a`, long ones into `b`, and both into `all`.
void RecordTwoPopulations(Histogram& a, Histogram& b, Histogram& all) {
  for (uint64_t v = 1; v <= 5000; ++v) {
    a.Record(v * 7);
    all.Record(v * 7);
  }
  for (uint64_t v = 1; v <= 3000; ++v) {
    b.Record(v * 1000);
    all.Record(v * 1000);
  }
}

TEST(HistogramTest, MergeEqualsRecordingEverything) {
  Histogram a, b, all;
  RecordTwoPopulations(a, b, all);
  a.Merge(b);
  EXPECT_EQ(a.count(), all.count());
  EXPECT_EQ(a.min_ns(), all.min_ns());
  EXPECT_EQ(a.max_ns(), all.max_ns());
  EXPECT_DOUBLE_EQ(a.mean_ns(), all.mean_ns());
  for (double q : {1.0, 50.0, 99.0}) EXPECT_EQ(a.Percentile(q), all.Percentile(q));
}

TEST(HistogramTest, MergeIntoEmptyKeepsMin) {
  Histogram empty, b;
  b.Record(500);
  empty.Merge(b);
  EXPECT_EQ(empty.min_ns(), 500u);
  EXPECT_EQ(empty.Percentile(50), 500u);
}

// Reports merge the exported buckets of repeats: that must give the percentiles the agent
// would have reported for all their IOs together.
TEST(HistogramTest, ExportedBucketsMergeAndGiveTheAgentsPercentiles) {
  Histogram a, b, all;
  RecordTwoPopulations(a, b, all);
  const LatencyHistogram ea = a.Buckets(), eb = b.Buckets();
  EXPECT_EQ(ea.Total(), a.count());
  for (size_t i = 1; i < ea.low_ns.size(); ++i) EXPECT_LT(ea.low_ns[i - 1], ea.low_ns[i]);
  const LatencyHistogram merged = MergeHistograms({&ea, &eb});
  const LatencyHistogram exported_all = all.Buckets();
  EXPECT_EQ(merged.low_ns, exported_all.low_ns);
  EXPECT_EQ(merged.count, exported_all.count);
  for (double q : {1.0, 50.0, 90.0, 99.0})  // away from min and max, where the agent clamps
    EXPECT_DOUBLE_EQ(HistogramPercentileUs(merged, q), double(all.Percentile(q)) / 1000.0) << q;
}

}  // namespace
}  // namespace storbed
