#include "tracing/io_path.h"

#include <gtest/gtest.h>

#include "tracing/io_path_figures.h"

namespace storbed {
namespace {

// A simulated guest path with a known truth: the guest's clock is the host's plus 5 ms;
// each 4k read, one every 60 us, spends 10 us to its bio, 5 us more to issue, 40 us until
// QEMU takes it, 20 us in QEMU's device and block layer, 1 us to the host device, 100 us
// there (traced), 10 us back to QEMU, 30 us to the guest's completion and 15 us to the
// application: 231 us in all.
constexpr int64_t kGuestAhead = 5000000;
constexpr int64_t kRealtimeAhead = 1700000000000000000;  // CLOCK_REALTIME - CLOCK_MONOTONIC

struct Sim {
  PathInputs in;
  size_t ios = 0;
};

Sim Simulate(size_t ios, int64_t link_error_ns, uint64_t link_uncertainty_ns) {
  Sim s;
  s.ios = ios;
  PathInputs& in = s.in;
  in.guest = true;
  in.first_sector = 2048;
  in.link_offset_ns = kGuestAhead + link_error_ns;
  in.link_uncertainty_ns = link_uncertainty_ns;
  in.realtime_to_mono_ns = -kRealtimeAhead;
  QemuRequests q;
  BlockTraceCapture host;
  in.backing.available = true;
  in.backing.major = 253;
  in.backing.minor = 0;
  in.backing.first_byte = 1 << 20;  // the backing device's partition
  for (size_t i = 0; i < ios; ++i) {
    const uint64_t host_submit = 1000000000 + i * 60000;  // host clock, us steps
    const uint64_t offset = (i * 7919 % 4096) * 4096;
    AgentTracedIo a;
    a.offset = offset;
    a.bytes = 4096;
    a.submit_ns = host_submit + kGuestAhead;
    a.queued_ns = a.submit_ns;
    uint64_t t = a.submit_ns;
    a.block.at[int(BlockEventKind::BioQueue)] = t += 10000;
    a.block.at[int(BlockEventKind::GetRq)] = t += 2000;
    a.block.at[int(BlockEventKind::RqIssue)] = t += 3000;
    QemuRequest r;
    r.sector = 2048 + offset / 512;
    r.sectors = 8;
    uint64_t h = t - kGuestAhead;
    r.pickup = (h += 40000) + kRealtimeAhead;
    r.block = (h += 10000) + kRealtimeAhead;
    r.submit = (h += 10000) + kRealtimeAhead;
    r.file_offset = r.sector * 512;
    r.file_bytes = 4096;
    BlockEvent issue, complete;
    issue.kind = BlockEventKind::RqIssue;
    complete.kind = BlockEventKind::RqComplete;
    for (BlockEvent* e : {&issue, &complete}) {
      e->major = 253;
      e->sector = (in.backing.first_byte + r.file_offset) / 512;
      e->sectors = 8;
      e->data = true;
    }
    issue.time_ns = h += 1000;
    complete.time_ns = h += 100000;
    host.events.push_back(issue);
    host.events.push_back(complete);
    r.complete = (h += 10000) + kRealtimeAhead;
    q.requests.push_back(r);
    t = h + kGuestAhead;
    a.block.at[int(BlockEventKind::RqComplete)] = t += 30000;
    a.seen_ns = t + 15000;
    a.block.requests = 1;
    a.state = JoinState::Joined;
    in.agent.push_back(a);
  }
  in.qemu = q;
  in.host_device = host;
  return s;
}

TEST(IoPath, TheGuestClockIsFoundByCausalityAndEveryLayerJoins) {
  const Sim s = Simulate(400, 300000, 1000000);  // the link's estimate is 0.3 ms off
  const PathJoin j = JoinPaths(s.in);
  EXPECT_EQ(j.joined, 400u);
  EXPECT_EQ(j.qemu_missing + j.qemu_ambiguous + j.host_missing + j.host_ambiguous, 0u);
  // The true offset lies within the stated uncertainty, which causality narrowed to a few us.
  EXPECT_LE(std::llabs(j.clock.offset_ns - kGuestAhead), int64_t(j.clock.uncertainty_ns));
  EXPECT_LT(j.clock.uncertainty_ns, 40000u);
  EXPECT_NE(j.clock.method.find("causal bounds from 400 IOs"), std::string::npos);
  ASSERT_TRUE(j.clock.first_half_ns && j.clock.second_half_ns);
  const TracedPath& p = j.paths[3];
  EXPECT_EQ(p.At(PathPoint::HostComplete) - p.At(PathPoint::HostIssue), 100000u);
  EXPECT_EQ(p.At(PathPoint::QemuPickup) + 20000, p.At(PathPoint::QemuSubmit));
  EXPECT_EQ(j.points.front(), PathPoint::AppSubmit);
  EXPECT_NE(std::find(j.points.begin(), j.points.end(), PathPoint::HostIssue), j.points.end());
}

TEST(IoPath, SegmentsAddUpToEachIosLatencyAndTheDepthIsTheIntervals) {
  const Sim s = Simulate(400, 0, 500000);
  const PathJoin j = JoinPaths(s.in);
  FigureInputs fi;
  fi.path = "guest (virtio-blk)";
  fi.phase_start_ns = j.paths.front().At(PathPoint::AppSubmit);
  fi.phase_end_ns = j.paths.back().At(PathPoint::AppSeen);
  fi.agent_layer = kLayerGuestBlock;
  fi.histogram_p50_us = 231;
  const IoTraceFigures f = ComputeIoTraceFigures(j, fi);
  EXPECT_DOUBLE_EQ(f.joined_share, 1.0);
  double sum = 0;
  for (const WaterfallStep& step : f.waterfalls.front().steps) sum += step.us;
  EXPECT_NEAR(sum, f.waterfalls.front().latency_us, 1e-9);
  EXPECT_NEAR(f.joined_p50_us, 231, 0.01);
  EXPECT_NEAR(f.p50_diff_pct, 0, 0.01);
  // Every segment of the simulation, where the clocks put it (cross-clock ones give or take
  // the offset's uncertainty).
  auto seg = [&](const std::string& name) {
    for (const SegmentFigures& sf : f.segments)
      if (sf.name == name) return sf;
    ADD_FAILURE() << "no segment " << name;
    return SegmentFigures{};
  };
  EXPECT_NEAR(seg("submit").p50_us, 10, 1e-9);
  EXPECT_NEAR(seg("host device").p50_us, 100, 1e-9);
  EXPECT_NEAR(seg("to QEMU").p50_us, 40, f.clock_uncertainty_ns / 1000.0 + 1e-9);
  EXPECT_EQ(seg("to QEMU").clocks, "guest -> host");
  EXPECT_EQ(seg("QEMU block layer").clocks, "host");
  EXPECT_NEAR(seg("completion").p50_us, 15, 1e-9);
  // 400 IOs of 231 us over the phase from the first submit to the last completion.
  ASSERT_FALSE(f.depth.empty());
  EXPECT_EQ(f.depth[0].layer, kLayerApp);
  EXPECT_NEAR(f.depth[0].depth, 400 * 231.0 / (399 * 60 + 231), 1e-9);
  EXPECT_DOUBLE_EQ(f.depth[0].ios_share, 1.0);
  EXPECT_NEAR(f.share_before_issue, 15.0 / 231, 1e-9);
  EXPECT_EQ(f.segments.front().percentiles_us.size(), 101u);
}

TEST(IoPath, AnIoQemuNeverSawIsMissingThereAndNotInTheSegments) {
  Sim s = Simulate(50, 0, 200000);
  s.in.qemu->requests.erase(s.in.qemu->requests.begin() + 10);
  const PathJoin j = JoinPaths(s.in);
  EXPECT_EQ(j.joined, 49u);
  EXPECT_EQ(j.qemu_missing, 1u);
  EXPECT_FALSE(j.paths[10].joined);
}

TEST(IoPath, BareMetalIsOneClockWithTheBlockLayerOnly) {
  Sim s = Simulate(20, 0, 0);
  s.in.guest = false;
  s.in.qemu.reset();
  s.in.host_device.reset();
  const PathJoin j = JoinPaths(s.in);
  EXPECT_EQ(j.joined, 20u);
  EXPECT_EQ(j.clock.offset_ns, 0);
  EXPECT_EQ(j.points.size(), 7u);  // app, the block layer's five, app
  EXPECT_EQ(j.paths[0].At(PathPoint::AppSubmit), s.in.agent[0].submit_ns);
  EXPECT_EQ(SegmentName(PathPoint::RqIssue, PathPoint::RqComplete), "device");
}

}  // namespace
}  // namespace storbed
