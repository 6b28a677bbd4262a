#include "analysis/ladder_builder.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "analysis/test_support.h"

namespace storbed {
namespace {

using ::testing::HasSubstr;
using testing_support::GuestRandRead;
using testing_support::Layer;
using testing_support::Missing;

TEST(LadderBuilderTest, AppLayerFromAgentCounters) {
  const LayerStats l = AppLayer(GuestRandRead());
  EXPECT_EQ(l.layer, kLayerApp);
  ASSERT_TRUE(l.available);
  EXPECT_DOUBLE_EQ(l.avg_depth, 32);
  ASSERT_TRUE(l.has_iops);
  EXPECT_DOUBLE_EQ(l.iops, 10000);
  ASSERT_TRUE(l.has_request_size);
  EXPECT_DOUBLE_EQ(l.avg_request_bytes, 4096);
  ASSERT_TRUE(l.has_latency);
  EXPECT_DOUBLE_EQ(l.mean_latency_us, 3200);
  EXPECT_FALSE(l.source.empty());
}

TEST(LadderBuilderTest, AppLayerUnavailableWithoutIo) {
  JobResult r;
  const LayerStats l = AppLayer(r);
  EXPECT_EQ(l.layer, kLayerApp);
  EXPECT_FALSE(l.available);
  EXPECT_EQ(l.reason, "the job completed no IO");
}

TEST(LadderBuilderTest, AppLayerWithDepthButNoCompletedIoIsAvailable) {
  JobResult r;
  r.app_avg_depth = 1;  // one IO in flight the whole phase, never completed
  const LayerStats l = AppLayer(r);
  EXPECT_TRUE(l.available);
  EXPECT_FALSE(l.has_request_size);
  EXPECT_FALSE(l.has_latency);
}

TEST(LadderBuilderTest, BlockLayerUsesLittlesLawForLatency) {
  const LayerStats l = BlockLayer(GuestRandRead(), kLayerGuestBlock);
  EXPECT_EQ(l.layer, kLayerGuestBlock);
  ASSERT_TRUE(l.available);
  EXPECT_DOUBLE_EQ(l.avg_depth, 31.8);
  EXPECT_DOUBLE_EQ(l.iops, 10000);
  EXPECT_DOUBLE_EQ(l.avg_request_bytes, 4096);
  ASSERT_TRUE(l.has_latency);
  EXPECT_NEAR(l.mean_latency_us, 3180, 1e-9);  // 31.8 / 10000 s
  EXPECT_THAT(l.source, HasSubstr("/proc/diskstats vda"));
  EXPECT_THAT(l.source, HasSubstr("Little's law"));
  EXPECT_TRUE(l.notes.empty());
}

TEST(LadderBuilderTest, BlockLayerNotesMerges) {
  JobResult r = GuestRandRead();
  r.block.read_merges = 12;
  const LayerStats l = BlockLayer(r, kLayerGuestBlock);
  ASSERT_EQ(l.notes.size(), 1u);
  EXPECT_EQ(l.notes[0], "12 read and 0 write merges");
}

TEST(LadderBuilderTest, BlockLayerWithoutIopsHasNoLatency) {
  JobResult r = GuestRandRead();
  r.block.iops = 0;
  r.block.reads = 0;
  r.block.avg_queue_depth = 0;
  const LayerStats l = BlockLayer(r, kLayerGuestBlock);
  EXPECT_TRUE(l.available);
  EXPECT_FALSE(l.has_latency);
  EXPECT_FALSE(l.has_request_size);
  EXPECT_THAT(l.source, ::testing::Not(HasSubstr("Little's law")));
}

TEST(LadderBuilderTest, BlockLayerUnavailableCarriesReason) {
  JobResult r = GuestRandRead();
  r.block = UnavailableBlockStats("no device: the target is on tmpfs");
  const LayerStats l = BlockLayer(r, kLayerHostDevice);
  EXPECT_EQ(l.layer, kLayerHostDevice);
  EXPECT_FALSE(l.available);
  EXPECT_EQ(l.reason, "no device: the target is on tmpfs");
}

TEST(LadderBuilderTest, GuestLadderHasFiveLayersInOrder) {
  const Ladder ladder = GuestLadder(GuestRandRead(), Missing("", "needs QEMU >= 7.2"),
                                    Layer(kLayerQemuBlock, 3.9), Layer("mislabelled", 3.8));
  ASSERT_EQ(ladder.layers.size(), 5u);
  EXPECT_EQ(ladder.layers[0].layer, kLayerApp);
  EXPECT_EQ(ladder.layers[1].layer, kLayerGuestBlock);
  EXPECT_EQ(ladder.layers[2].layer, kLayerVirtqueue);
  EXPECT_EQ(ladder.layers[2].reason, "needs QEMU >= 7.2");
  EXPECT_EQ(ladder.layers[3].layer, kLayerQemuBlock);
  EXPECT_DOUBLE_EQ(ladder.layers[3].avg_depth, 3.9);
  EXPECT_EQ(ladder.layers[4].layer, kLayerHostDevice);
  EXPECT_DOUBLE_EQ(ladder.layers[4].avg_depth, 3.8);
}

TEST(LadderBuilderTest, BareMetalLadderIsAppAndLoopDevice) {
  JobResult r = GuestRandRead();
  r.block.device = "loop3";
  const Ladder ladder = BareMetalLadder(r);
  ASSERT_EQ(ladder.layers.size(), 2u);
  EXPECT_EQ(ladder.layers[0].layer, kLayerApp);
  EXPECT_EQ(ladder.layers[1].layer, kLayerHostDevice);
  EXPECT_THAT(ladder.layers[1].source, HasSubstr("loop3"));
}

TEST(LadderBuilderTest, SleepingWaitsAreNamedWhereTheDeviceLosesDepth) {
  JobResult r = GuestRandRead();
  r.app_avg_depth = 1.0;
  r.block.avg_queue_depth = 0.81;
  r.reap = "wait";
  const Ladder waited = BareMetalLadder(r);
  ASSERT_EQ(waited.layers[0].notes.size(), 1u);
  EXPECT_THAT(waited.layers[0].notes[0], HasSubstr("reap poll takes it out"));
  // Within 5%: nothing to explain.
  r.block.avg_queue_depth = 0.96;
  EXPECT_TRUE(BareMetalLadder(r).layers[0].notes.empty());
  // Polled: said in the source, no note.
  r.block.avg_queue_depth = 0.81;
  r.reap = "poll";
  const Ladder polled = BareMetalLadder(r);
  EXPECT_TRUE(polled.layers[0].notes.empty());
  EXPECT_THAT(polled.layers[0].source, HasSubstr("completions polled"));
  // psync has nothing to reap.
  r.reap = "";
  EXPECT_TRUE(BareMetalLadder(r).layers[0].notes.empty());
}

// The ladder travels inside the run record; it must come back unchanged.
TEST(LadderBuilderTest, LadderJsonRoundTripInsideRecord) {
  Ladder ladder =
      GuestLadder(GuestRandRead(), Missing(kLayerVirtqueue, "needs QEMU >= 7.2"),
                  Layer(kLayerQemuBlock, 3.9, 9990, 390.4), Layer(kLayerHostDevice, 3.8));
  ladder.layers[4].notes.push_back("device shared with other host IO");
  const nlohmann::json record = {{"job", "randread"}, {"guest", {{"ladder", ladder}}}};
  const Ladder back = nlohmann::json::parse(record.dump()).at("guest").at("ladder").get<Ladder>();
  ASSERT_EQ(back.layers.size(), ladder.layers.size());
  for (size_t i = 0; i < ladder.layers.size(); ++i) {
    const LayerStats &a = ladder.layers[i], &b = back.layers[i];
    EXPECT_EQ(b.layer, a.layer);
    EXPECT_EQ(b.available, a.available);
    EXPECT_EQ(b.reason, a.reason);
    EXPECT_EQ(b.source, a.source);
    EXPECT_DOUBLE_EQ(b.avg_depth, a.avg_depth);
    EXPECT_EQ(b.has_iops, a.has_iops);
    EXPECT_DOUBLE_EQ(b.iops, a.iops);
    EXPECT_EQ(b.has_request_size, a.has_request_size);
    EXPECT_DOUBLE_EQ(b.avg_request_bytes, a.avg_request_bytes);
    EXPECT_EQ(b.has_latency, a.has_latency);
    EXPECT_DOUBLE_EQ(b.mean_latency_us, a.mean_latency_us);
    EXPECT_EQ(b.notes, a.notes);
  }
}

}  // namespace
}  // namespace storbed
