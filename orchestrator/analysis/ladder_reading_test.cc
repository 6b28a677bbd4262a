#include "analysis/ladder_reading.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <regex>

#include "analysis/test_support.h"
#include "inflight_stats.h"

namespace storbed {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;
using testing_support::Layer;
using testing_support::Missing;

// `n` point samples: `at_max` share of them at `max`, the rest spread below it.
std::vector<double> Samples(int n, double max, double at_max) {
  std::vector<double> out;
  for (int i = 0; i < n; ++i)
    out.push_back(i < at_max * n ? max : static_cast<double>(i % static_cast<int>(max)));
  return out;
}

LayerStats App(double depth, std::vector<double> time_at, double latency_us) {
  LayerStats l = Layer(kLayerApp, depth, 10000, latency_us);
  l.inflight = DistributionOfTime(std::move(time_at));
  return l;
}

LayerStats Sampled(const char* id, double depth, std::vector<double> samples, double ci,
                   double latency_us = -1) {
  LayerStats l = Layer(id, depth, 10000, latency_us);
  l.inflight = DistributionOfSamples(samples);
  l.has_depth_interval = true;
  l.depth_ci95 = ci;
  l.depth_samples = samples.size();
  return l;
}

// Every figure a reading prints, as text: none may be a negative number.
std::string AllText(const LadderReading& r) {
  std::string s = r.headline + "\n" + r.time_split + "\n" + r.depth_step + "\n";
  for (const std::string& x : r.steps) s += x + "\n";
  return s;
}

bool HasNegativeFigure(const std::string& s) {
  return std::regex_search(s, std::regex(R"((^|[ (])-[0-9])"));
}

TEST(LadderReadingTest, QueueDepthOneGetsATimeSplitAndNoLossHeadline) {
  // The issue's psync QD1 job: 0.76 in the guest block layer, 0.16 in the virtqueue.
  Ladder ladder;
  ladder.layers = {App(0.95, {0.05e9, 0.95e9}, 300),
                   Sampled(kLayerGuestBlock, 0.76, Samples(100, 1, 0.76), 0.01, 240),
                   Sampled(kLayerVirtqueue, 0.16, Samples(20, 1, 0.16), 0.15),
                   Layer(kLayerQemuBlock, 0.5, 3000, 160), Layer(kLayerHostDevice, 0.3, 3000, 100)};
  const LadderReading r = ReadLadder(ladder);
  EXPECT_TRUE(r.qd1);
  EXPECT_FALSE(r.cap);
  EXPECT_THAT(r.headline, StartsWith("no cap at QD1"));
  EXPECT_THAT(r.headline, HasSubstr("each IO spends 20% above the guest block layer"));
  EXPECT_THAT(r.headline, HasSubstr("27% between the guest block layer and QEMU's block layer, "
                                    "20% between QEMU's block layer and the host device, "
                                    "33% in the host device and below"));
  EXPECT_THAT(AllText(r), Not(HasSubstr("falls")));
  EXPECT_THAT(r.depth_step, HasSubstr("not named at QD1"));
}

TEST(LadderReadingTest, GuestNrRequestsFourUnderIodepth32IsACapWithItsCause) {
  Ladder ladder;
  std::vector<double> app_time(33, 0);
  app_time[32] = 1e9;
  ladder.layers = {App(32, app_time, 3200),
                   Sampled(kLayerGuestBlock, 3.9, Samples(200, 4, 0.95), 0.01, 400),
                   Sampled(kLayerVirtqueue, 3.8, Samples(100, 4, 0.9), 0.1),
                   Layer(kLayerQemuBlock, 3.8, 10000, 380)};
  ladder.limits = {{kLayerGuestBlock, "guest nr_requests", 4},
                   {kLayerVirtqueue, "virtqueue size 256 x num-queues 1", 256}};
  const LadderReading r = ReadLadder(ladder);
  ASSERT_TRUE(r.cap);
  EXPECT_EQ(r.cap->layer, kLayerGuestBlock);
  EXPECT_EQ(r.cap->n, 4);
  EXPECT_THAT(r.headline,
              StartsWith("capped at 4 at the guest block layer (guest nr_requests = 4)"));
  EXPECT_THAT(r.headline, HasSubstr("the application held more than 4 for 100% of the window"));
  EXPECT_THAT(r.headline, HasSubstr("never more than 4 in 200 samples"));
}

TEST(LadderReadingTest, ACapWithoutAMatchingLimitSaysTheCauseIsNotKnown) {
  Ladder ladder;
  std::vector<double> app_time(33, 0);
  app_time[32] = 1e9;
  ladder.layers = {App(32, app_time, 3200),
                   Sampled(kLayerGuestBlock, 3.9, Samples(200, 4, 0.95), 0.01, 400)};
  ladder.limits = {{kLayerGuestBlock, "guest nr_requests", 256}};
  const LadderReading r = ReadLadder(ladder);
  ASSERT_TRUE(r.cap);
  EXPECT_THAT(r.headline, HasSubstr("cause not known (guest nr_requests is 256)"));
}

TEST(LadderReadingTest, DeepQueueWithALowerLayerThatWandersIsATimeSplitNotACap) {
  // IOs spend most of their time above the virtqueue: the virtqueue averages 3 and peaks
  // at 12 once, but never sits at its peak. Its average is lower; no cap is claimed.
  Ladder ladder;
  std::vector<double> app_time(33, 0);
  app_time[32] = 1e9;
  std::vector<double> vq;
  for (int i = 0; i < 100; ++i) vq.push_back(i == 50 ? 12 : i % 6);
  ladder.layers = {App(32, app_time, 3200),
                   Sampled(kLayerGuestBlock, 31.5, std::vector<double>(100, 32), 0.01, 3150),
                   Sampled(kLayerVirtqueue, 3, vq, 0.5), Layer(kLayerQemuBlock, 3, 10000, 300)};
  const LadderReading r = ReadLadder(ladder);
  EXPECT_FALSE(r.cap);
  EXPECT_THAT(r.headline, StartsWith("no cap: each IO spends"));
  EXPECT_THAT(r.headline,
              HasSubstr("2% above the guest block layer, 89% between the guest block layer and "
                        "QEMU's block layer"));
  EXPECT_THAT(r.depth_step,
              HasSubstr("from 31.5 +/- 0.01 (95%, 100 samples) in the guest block layer"));
}

TEST(LadderReadingTest, FsyncJobOnBareMetalPrintsNoNegativeFigureAndSaysWhy) {
  // The issue's bare-metal fsync write: L0 0.81 at 50 us, the host device 0.99 at 67.6 us
  // with the journal's writes and the flushes on it.
  Ladder ladder;
  LayerStats app = App(0.81, {0.19e9, 0.81e9}, 50);
  app.has_ops = true;
  app.writes_per_s = 16000;
  app.flushes_per_s = 1000;
  LayerStats dev = Layer(kLayerHostDevice, 0.99, 18000, 67.6);
  dev.has_ops = true;
  dev.writes_per_s = 18000;
  dev.flushes_per_s = 1000;
  ladder.layers = {app, dev};
  const LadderReading r = ReadLadder(ladder);
  const std::string text = AllText(r);
  EXPECT_FALSE(HasNegativeFigure(text)) << text;
  ASSERT_EQ(r.steps.size(), 2u);
  EXPECT_THAT(r.steps[0], HasSubstr("not comparable: the host device served 2000 writes/s more "
                                    "than the application issued (journal"));
  EXPECT_THAT(r.headline, HasSubstr("not comparable"));
  ASSERT_EQ(r.extra_work.size(), 1u);
}

TEST(LadderReadingTest, FlushesBelowTheAppMakeDepthNotComparableButLatencyStill) {
  Ladder ladder;
  LayerStats app = App(0.8, {0.2e9, 0.8e9}, 50);
  app.has_ops = true;
  app.writes_per_s = 1000;
  app.flushes_per_s = 1000;
  LayerStats blk = Layer(kLayerGuestBlock, 0.95, 1000, 40);
  blk.has_ops = true;
  blk.writes_per_s = 1000;
  blk.flushes_per_s = 1000;
  ladder.layers = {app, blk};
  const std::vector<StepComparison> c = CompareSteps(ladder);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_FALSE(c[0].depth_comparable);
  EXPECT_TRUE(c[0].latency_comparable);
  EXPECT_THAT(c[0].reason, HasSubstr("leaves the fsync time out"));
}

TEST(LadderReadingTest, ATrickleOfOtherWorkBelowIsNamedButKeepsTheStepComparable) {
  // The host disk under QEMU served 8 writes/s beside 1583 reads: another tenant.
  Ladder ladder;
  LayerStats qemu = Layer(kLayerQemuBlock, 0.85, 1584, 536);
  qemu.has_ops = true;
  qemu.reads_per_s = 1584;
  LayerStats dev = Layer(kLayerHostDevice, 0.34, 1583, 213);
  dev.has_ops = true;
  dev.reads_per_s = 1583;
  dev.writes_per_s = 8;
  ladder.layers = {qemu, dev};
  const std::vector<StepComparison> c = CompareSteps(ladder);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_TRUE(c[0].depth_comparable);
  EXPECT_TRUE(c[0].latency_comparable);
  ASSERT_EQ(c[0].extra_work.size(), 1u);
  EXPECT_THAT(c[0].extra_work[0], HasSubstr("8 writes/s more than QEMU's block layer issued"));
}

TEST(LadderReadingTest, LowerRungDeeperWithNoExtraWorkIsNotComparable) {
  Ladder ladder;
  ladder.layers = {App(4, {0, 0, 0, 0, 1e9}, 400), Layer(kLayerGuestBlock, 4.6, 10000, 460)};
  const LadderReading r = ReadLadder(ladder);
  EXPECT_FALSE(HasNegativeFigure(AllText(r)));
  EXPECT_THAT(r.steps[0], HasSubstr("not comparable"));
  EXPECT_EQ(r.depth_step, "no comparable step larger than the rungs' intervals");
}

TEST(LadderReadingTest, StepsInsideTheirIntervalsAreNotNamed) {
  // 8.0 exact, 7.5 +/- 0.1, the virtqueue 6.6 +/- 0.9 from 20 samples: neither step is
  // larger than its intervals (and the first is under 10% of 8).
  Ladder ladder;
  ladder.layers = {App(8, {0, 0, 0, 0, 0, 0, 0, 0, 1e9}, 800),
                   Sampled(kLayerGuestBlock, 7.5, Samples(100, 8, 0.5), 0.1, 750),
                   Sampled(kLayerVirtqueue, 6.6, Samples(20, 8, 0.1), 0.9)};
  EXPECT_EQ(ReadLadder(ladder).depth_step, "no comparable step larger than the rungs' intervals");
  // The same virtqueue with a tight interval: the step is named.
  ladder.layers[2].depth_ci95 = 0.05;
  EXPECT_THAT(ReadLadder(ladder).depth_step,
              HasSubstr("falls from 7.5 +/- 0.10 (95%, 100 samples) in the guest block layer to "
                        "6.6"));
}

// Regression: a counter rung's resolution was printed like a sampled rung's 95% interval
// ("31.8 +/- 0.00"); it is a bound and says so.
TEST(LadderReadingTest, BoundsAndIntervalsAreLabelledAsWhatTheyAre) {
  LayerStats bound = Layer(kLayerGuestBlock, 31.8);
  bound.has_depth_bound = true;
  bound.depth_bound = 0.0002;
  EXPECT_EQ(DepthWithInterval(bound), "31.8 +/- 0.00 (bound)");
  LayerStats sampled = Sampled(kLayerVirtqueue, 1.3, Samples(209, 4, 0.3), 0.33);
  EXPECT_EQ(DepthWithInterval(sampled), "1.3 +/- 0.33 (95%, 209 samples)");
  LayerStats refused = Layer(kLayerVirtqueue, 0.28);
  refused.interval_refused = "about 4 effective samples of 60";
  EXPECT_EQ(DepthWithInterval(refused), "0.28 (no interval)");
  EXPECT_EQ(DepthWithInterval(Layer(kLayerApp, 32)), "32.0");
  EXPECT_DOUBLE_EQ(DepthNoise(bound), 0.0002);
  EXPECT_DOUBLE_EQ(DepthNoise(sampled), 0.33);
  EXPECT_TRUE(std::isinf(DepthNoise(refused)));
  EXPECT_EQ(DepthNoise(Layer(kLayerApp, 32)), 0);
}

TEST(LadderReadingTest, ALowerRungDeeperWithinTheUppersBoundIsComparable) {
  // QEMU's block layer at 4.05 under a guest block layer of 4.0 +/- 0.1 (span bound).
  LayerStats blk = Layer(kLayerGuestBlock, 4.0, 10000, 400);
  blk.has_depth_bound = true;
  blk.depth_bound = 0.1;
  Ladder ladder;
  ladder.layers = {blk, Layer(kLayerQemuBlock, 4.05, 10000, 390)};
  std::vector<StepComparison> c = CompareSteps(ladder);
  ASSERT_EQ(c.size(), 1u);
  EXPECT_TRUE(c[0].depth_comparable) << c[0].reason;
  EXPECT_FALSE(c[0].lower_deeper);
  ladder.layers[1].avg_depth = 4.2;
  c = CompareSteps(ladder);
  EXPECT_TRUE(c[0].lower_deeper);
  EXPECT_THAT(c[0].reason, HasSubstr("beyond their intervals and bounds"));
}

TEST(LadderReadingTest, AStepAtARungWithoutAnIntervalIsNotNamedAndTheReadingSaysWhy) {
  // The guest block layer at 7.5 (a bound), the virtqueue at 0.3 from samples too alike for
  // an interval: the drop may be real, but nothing says how far 0.3 is off.
  Ladder ladder;
  LayerStats blk = Layer(kLayerGuestBlock, 7.5, 10000, 750);
  blk.has_depth_bound = true;
  blk.depth_bound = 0.001;
  LayerStats vq = Layer(kLayerVirtqueue, 0.3);
  vq.interval_refused = "about 4 effective samples of 60 (lag-1 autocorrelation 0.93)";
  vq.depth_samples = 60;
  ladder.layers = {App(8, {0, 0, 0, 0, 0, 0, 0, 0, 1e9}, 800), blk, vq};
  EXPECT_EQ(ReadLadder(ladder).depth_step,
            "no comparable step larger than the rungs' intervals; the drop from 7.5 in the guest "
            "block layer to 0.30 in the virtqueue cannot be judged: the virtqueue has no "
            "interval (about 4 effective samples of 60 (lag-1 autocorrelation 0.93))");
  // Deeper than the rung above, but with no interval: not called impossible.
  ladder.layers[2].avg_depth = 9;
  const std::vector<StepComparison> c = CompareSteps(ladder);
  EXPECT_FALSE(c[1].lower_deeper);
}

TEST(LadderReadingTest, OldResultsWithoutDistributionsDoNotClaimACap) {
  Ladder ladder;
  ladder.layers = {Layer(kLayerApp, 32, 10000, 3200), Layer(kLayerGuestBlock, 4, 10000, 400),
                   Missing(kLayerVirtqueue, "needs QEMU >= 7.2")};
  const LadderReading r = ReadLadder(ladder);
  EXPECT_FALSE(r.cap);
  EXPECT_THAT(r.headline, StartsWith("cap not judged"));
}

TEST(LadderReadingTest, OneMeasuredRungHasNothingToCompare) {
  Ladder ladder;
  ladder.layers = {Layer(kLayerApp, 1), Missing(kLayerHostDevice, "no device")};
  EXPECT_THAT(ReadLadder(ladder).headline, StartsWith("nothing to compare"));
}

}  // namespace
}  // namespace storbed
