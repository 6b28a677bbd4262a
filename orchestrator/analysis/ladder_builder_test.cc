#include "analysis/ladder_builder.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "analysis/test_support.h"
#include "inflight_stats.h"

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
  const Ladder ladder = GuestLadder(GuestRandRead(), {}, Missing("", "needs QEMU >= 7.2"),
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
      GuestLadder(GuestRandRead(), {}, Missing(kLayerVirtqueue, "needs QEMU >= 7.2"),
                  Layer(kLayerQemuBlock, 3.9, 9990, 390.4), Layer(kLayerHostDevice, 3.8));
  ladder.layers[4].notes.push_back("device shared with other host IO");
  ladder.layers[0].inflight = DistributionOfTime({0, 1e9, 3e9});
  ladder.layers[1].has_depth_interval = true;
  ladder.layers[1].depth_ci95 = 0.25;
  ladder.layers[1].depth_samples = 40;
  ladder.layers[1].interval_basis = "40 point samples";
  ladder.layers[3].interval_refused = "about 4 effective samples of 60";
  ladder.layers[3].depth_samples = 60;
  ladder.layers[1].has_ops = true;
  ladder.layers[1].flushes_per_s = 12.5;
  ladder.limits.push_back({kLayerGuestBlock, "guest nr_requests", 4});
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
    EXPECT_EQ(b.inflight.available, a.inflight.available);
    EXPECT_EQ(b.inflight.share, a.inflight.share);
    EXPECT_EQ(b.inflight.p99, a.inflight.p99);
    EXPECT_EQ(b.has_depth_interval, a.has_depth_interval);
    EXPECT_DOUBLE_EQ(b.depth_ci95, a.depth_ci95);
    EXPECT_EQ(b.depth_samples, a.depth_samples);
    EXPECT_EQ(b.interval_basis, a.interval_basis);
    EXPECT_EQ(b.has_depth_bound, a.has_depth_bound);
    EXPECT_DOUBLE_EQ(b.depth_bound, a.depth_bound);
    EXPECT_EQ(b.bound_basis, a.bound_basis);
    EXPECT_EQ(b.interval_refused, a.interval_refused);
    EXPECT_EQ(b.has_ops, a.has_ops);
    EXPECT_DOUBLE_EQ(b.flushes_per_s, a.flushes_per_s);
  }
  ASSERT_EQ(back.limits.size(), 1u);
  EXPECT_EQ(back.limits[0].cause, "guest nr_requests");
  EXPECT_EQ(back.limits[0].value, 4);
}

TEST(LadderBuilderTest, AppLayerDistributionIsTheEnginesTimeAtEachDepth) {
  JobResult r = GuestRandRead();
  r.app_inflight_ns = {0, 0, 1e9, 0, 9e9};  // 10% at 2, 90% at 4
  r.reads = 100000;
  r.fsyncs = 0;
  const LayerStats l = AppLayer(r);
  ASSERT_TRUE(l.inflight.available);
  EXPECT_TRUE(l.inflight.exact);
  EXPECT_EQ(l.inflight.p50, 4);
  EXPECT_EQ(l.inflight.max, 4);
  EXPECT_NEAR(l.inflight.ShareAbove(2), 0.9, 1e-12);
  ASSERT_TRUE(l.has_ops);
  EXPECT_DOUBLE_EQ(l.reads_per_s, 10000);
  EXPECT_DOUBLE_EQ(l.flushes_per_s, 0);
}

TEST(LadderBuilderTest, AppLayerCountsFsyncsAsFlushesAndSaysTheyAreOutsideItsDepth) {
  JobResult r = GuestRandRead();
  r.ios = 1000;
  r.writes = 1000;
  r.reads = 0;
  r.fsyncs = 500;
  const LayerStats l = AppLayer(r);
  EXPECT_DOUBLE_EQ(l.flushes_per_s, 50);
  EXPECT_DOUBLE_EQ(l.writes_per_s, 100);
  ASSERT_EQ(l.notes.size(), 1u);
  EXPECT_THAT(l.notes[0], HasSubstr("fsync time is outside"));
}

TEST(LadderBuilderTest, BlockLayerLatencyLeavesFlushTimeOut) {
  // 100 writes and 100 flushes in 1 s; field 11 holds 600 ms (depth 0.6), of which the
  // writes' own 200 ms: 2 ms a write, not the 6 ms depth / IOPS would give.
  JobResult r = GuestRandRead();
  r.block.interval_s = 1;
  r.block.reads = 0;
  r.block.writes = 100;
  r.block.flushes = 100;
  r.block.iops = 100;
  r.block.avg_queue_depth = 0.6;
  r.block.has_rw_ms = true;
  r.block.rw_ms = 200;
  const LayerStats l = BlockLayer(r, kLayerGuestBlock);
  ASSERT_TRUE(l.has_latency);
  EXPECT_NEAR(l.mean_latency_us, 2000, 1e-9);
  EXPECT_DOUBLE_EQ(l.flushes_per_s, 100);
  EXPECT_DOUBLE_EQ(l.writes_per_s, 100);
}

// Regression: the diskstats rung carried its 1 ms resolution as depth_ci95, so it was
// printed as a 95% interval; it is a bound (half width 2 ms / interval), and no interval.
TEST(LadderBuilderTest, BlockLayerResolutionIsABoundNotAnInterval) {
  JobResult r = GuestRandRead();
  r.block.interval_s = 4;
  const LayerStats l = BlockLayer(r, kLayerGuestBlock);
  EXPECT_FALSE(l.has_depth_interval);
  ASSERT_TRUE(l.has_depth_bound);
  EXPECT_DOUBLE_EQ(l.depth_bound, 0.0005);
  EXPECT_THAT(l.bound_basis, HasSubstr("1 ms resolution"));
  const nlohmann::json j = l;
  EXPECT_FALSE(j.contains("depth_ci95"));
  EXPECT_DOUBLE_EQ(j.at("depth_bound").get<double>(), 0.0005);
}

// Records written before bounds had a field of their own (tests/fuzz/corpus/results_fuzz/
// depth-cap-guest.json): depth_ci95 with a resolution or span basis is read as a bound, a
// point-sample interval stays an interval.
TEST(LadderBuilderTest, OldRecordsWithABoundInDepthCi95AreReadAsBounds) {
  const auto read = [](const char* text) { return nlohmann::json::parse(text).get<LayerStats>(); };
  const LayerStats disk = read(R"({"layer": "L1 guest block", "available": true,
      "avg_depth": 3.0, "depth_ci95": 0.00063, "depth_samples": 0,
      "interval_basis": "diskstats counters over the IO phase, 1 ms resolution"})");
  EXPECT_FALSE(disk.has_depth_interval);
  ASSERT_TRUE(disk.has_depth_bound);
  EXPECT_DOUBLE_EQ(disk.depth_bound, 0.00063);
  EXPECT_EQ(disk.bound_basis, "diskstats counters over the IO phase, 1 ms resolution");
  const LayerStats span = read(R"({"layer": "L2 QEMU block", "available": true,
      "avg_depth": 0.85, "depth_ci95": 0.0207, "depth_samples": 2,
      "interval_basis": "counters 3.101 s apart around the 3.027 s window"})");
  EXPECT_FALSE(span.has_depth_interval);
  EXPECT_TRUE(span.has_depth_bound);
  EXPECT_EQ(span.depth_samples, 0u);
  const LayerStats sampled = read(R"json({"layer": "L2 virtqueue", "available": true,
      "avg_depth": 1.3, "depth_ci95": 0.33, "depth_samples": 209,
      "interval_basis": "209 point samples, batch means (10 batches)"})json");
  EXPECT_TRUE(sampled.has_depth_interval);
  EXPECT_FALSE(sampled.has_depth_bound);
  EXPECT_EQ(sampled.depth_samples, 209u);
}

TEST(LadderBuilderTest, BlockLayerDistributionFromTheAgentsInflightSamplesInThePhase) {
  JobResult r = GuestRandRead();
  Timeline t{.name = "guest.vda.inflight", .unit = "requests", .t_s = {}, .value = {}};
  t.Add(-0.5, 30);  // before the phase: left out
  for (int i = 0; i < 10; ++i) t.Add(0.1 * i, 4);
  t.Add(11, 30);  // after it
  r.timelines.push_back(t);
  r.timelines.push_back({.name = "guest.vdb.inflight", .unit = "", .t_s = {1}, .value = {9}});
  const LayerStats l = BlockLayer(r, kLayerGuestBlock);
  ASSERT_TRUE(l.inflight.available);
  EXPECT_EQ(l.inflight.samples, 10u);
  EXPECT_EQ(l.inflight.max, 4);
}

TEST(LadderBuilderTest, PathLimitsNameNrRequestsVirtqueueAndThreadPool) {
  JobResult r = GuestRandRead();
  r.tunables_applied.nr_requests = 4;
  const GuestDiskShape disk{
      .has_virtqueues = true, .queue_size = 64, .num_queues = 2, .aio_threads = true};
  const std::vector<LayerLimit> guest = PathLimits(r, kLayerGuestBlock, &disk);
  ASSERT_EQ(guest.size(), 3u);
  EXPECT_EQ(guest[0].layer, kLayerGuestBlock);
  EXPECT_EQ(guest[0].cause, "guest nr_requests");
  EXPECT_EQ(guest[0].value, 4);
  EXPECT_EQ(guest[1].layer, kLayerVirtqueue);
  EXPECT_EQ(guest[1].value, 128);
  EXPECT_EQ(guest[2].layer, kLayerHostDevice);
  EXPECT_EQ(guest[2].value, 64);
  const Ladder bare = BareMetalLadder(r);
  ASSERT_EQ(bare.limits.size(), 1u);
  EXPECT_EQ(bare.limits[0].layer, kLayerHostDevice);
  EXPECT_EQ(bare.limits[0].cause, "the device's nr_requests");
}

}  // namespace
}  // namespace storbed
