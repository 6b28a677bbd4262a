#include "reports/ladder_text.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>

#include "analysis/ladder_builder.h"
#include "analysis/test_support.h"

namespace storbed {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing_support::GuestRandRead;
using testing_support::Layer;
using testing_support::Missing;

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// The first line starting with `prefix`, or "" when none does.
std::string LineStarting(const std::string& text, const std::string& prefix) {
  for (const std::string& line : Lines(text))
    if (line.rfind(prefix, 0) == 0) return line;
  return "";
}

Ladder Guest() {
  return GuestLadder(GuestRandRead(), {}, Missing(kLayerVirtqueue, "needs QEMU >= 7.2"),
                     Layer(kLayerQemuBlock, 3.9, 9990, 390.4), Layer(kLayerHostDevice, 3.8));
}

// The text after the line that is exactly `heading`.
std::string After(const std::string& text, const std::string& heading) {
  const size_t at = text.find("\n" + heading + "\n");
  return at == std::string::npos ? "" : text.substr(at + heading.size() + 2);
}

TEST(LadderTextTest, OneRowPerLayerWithFiguresOrReason) {
  const std::string text = RenderLadder("randread 4k qd32, virtio-blk", Guest(), std::nullopt);
  EXPECT_EQ(Lines(text).front(), "randread 4k qd32, virtio-blk");
  EXPECT_EQ(Lines(text)[1], "guest");
  const std::string l1 = LineStarting(text, kLayerGuestBlock);
  EXPECT_THAT(l1, HasSubstr("31.8"));
  EXPECT_THAT(l1, HasSubstr("4.0"));
  EXPECT_THAT(l1, HasSubstr("3180.0"));
  EXPECT_THAT(l1, HasSubstr("/proc/diskstats vda"));
  EXPECT_THAT(LineStarting(text, kLayerVirtqueue), HasSubstr("not available: needs QEMU >= 7.2"));
  EXPECT_THAT(text, Not(HasSubstr("bare metal")));
  // No in-flight distribution below the application in this hand-made ladder: no cap claimed.
  EXPECT_THAT(text, HasSubstr("reading: cap not judged"));
  EXPECT_THAT(text, HasSubstr("largest depth step: depth falls from 31.8 +/- 0.00 (bound) in "
                              "the guest block layer to 3.9 in QEMU's block layer\n"));
  EXPECT_THAT(text, HasSubstr("latency added: the application adds 20.0 us above the guest "
                              "block layer; the guest block layer adds 2789.6 us above QEMU's "
                              "block layer; QEMU's block layer itself takes 390.4 us\n"));
}

TEST(LadderTextTest, BareMetalHasItsOwnTableAndReadingBelowTheGuest) {
  JobResult bm = GuestRandRead();
  bm.block.device = "loop3";
  bm.block.avg_queue_depth = 31.7;
  bm.app_avg_depth = 31.9;
  const std::string text = RenderLadder("randread", Guest(), BareMetalLadder(bm));
  const std::string bare = After(text, "bare metal");
  ASSERT_FALSE(bare.empty());
  EXPECT_THAT(LineStarting(bare, kLayerApp), HasSubstr("31.9"));
  EXPECT_THAT(LineStarting(bare, kLayerHostDevice), HasSubstr("31.7"));
  EXPECT_THAT(LineStarting(bare, kLayerHostDevice), HasSubstr("/proc/diskstats loop3"));
  EXPECT_EQ(LineStarting(bare, kLayerQemuBlock), "");
  EXPECT_THAT(bare, HasSubstr("largest depth step: no comparable step larger than the rungs' "
                              "intervals\n"));
  EXPECT_THAT(LineStarting(text, kLayerHostDevice), HasSubstr("3.8"));  // the guest's, first
}

TEST(LadderTextTest, UnavailableBareMetalLayerSaysWhy) {
  JobResult bm = GuestRandRead();
  bm.block = UnavailableBlockStats("no device: the backing is on tmpfs");
  const std::string bare =
      After(RenderLadder("randread", Guest(), BareMetalLadder(bm)), "bare metal");
  EXPECT_THAT(LineStarting(bare, kLayerHostDevice),
              HasSubstr("not available: no device: the backing is on tmpfs"));
  EXPECT_THAT(bare, HasSubstr("reading: nothing to compare: only the application was measured "
                              "(32.0)\n"));
  EXPECT_THAT(bare, HasSubstr("latency added: fewer than two layers have a mean latency\n"));
}

TEST(LadderTextTest, ColumnsLineUp) {
  const std::string text = RenderLadder("t", Guest(), std::nullopt);
  const std::vector<std::string> lines = Lines(text);
  // Heading and every layer row put the source column at the same offset.
  const size_t at = lines[2].find("source");
  ASSERT_NE(at, std::string::npos);
  EXPECT_EQ(LineStarting(text, kLayerGuestBlock).find("/proc/diskstats"), at);
  EXPECT_EQ(LineStarting(text, kLayerVirtqueue).find("not available"), at);
}

TEST(LadderTextTest, LayerNotesArePrinted) {
  Ladder guest = Guest();
  guest.layers[4].notes.push_back("device shared with other host IO");
  EXPECT_THAT(RenderLadder("t", guest, std::nullopt),
              HasSubstr("  note, L3 host device: device shared with other host IO\n"));
}

TEST(LadderTextTest, ABareMetalRunAloneIsHeadedBareMetal) {
  const std::vector<std::string> lines = Lines(RenderBareMetalLadder("qd1", Guest()));
  ASSERT_GE(lines.size(), 2u);
  EXPECT_EQ(lines[1], "bare metal");
}

// The bare-metal fsync job: the host device deeper than the application, with the
// journal's writes and flushes on it. Regression: it printed "-17.6 us" and 0.99 under 0.81.
TEST(LadderTextTest, ADeeperLowerRungIsNotComparableAndNoNegativeFigureIsPrinted) {
  JobResult r = GuestRandRead();
  r.app_avg_depth = 0.81;
  r.app_inflight_ns = {0.19e9, 0.81e9};
  r.latency.mean_us = 50;
  r.ios = 16000;
  r.reads = 0;
  r.writes = 16000;
  r.fsyncs = 1000;
  r.runtime_s = 1;
  r.block.interval_s = 1;
  r.block.device = "loop3";
  r.block.reads = 0;
  r.block.writes = 18000;
  r.block.flushes = 1000;
  r.block.iops = 18000;
  r.block.avg_queue_depth = 0.99;
  r.block.has_rw_ms = true;
  r.block.rw_ms = 1217;  // 67.6 us a write
  const std::string text = RenderBareMetalLadder("fsync", BareMetalLadder(r));
  EXPECT_THAT(LineStarting(text, kLayerHostDevice), HasSubstr("n/c"));
  EXPECT_THAT(LineStarting(text, kLayerHostDevice), Not(HasSubstr("0.99")));
  EXPECT_THAT(text, HasSubstr("L3 host device depth against the application: not comparable: "
                              "the host device served 2000 writes/s more than the application"));
  EXPECT_THAT(text, HasSubstr("the application above the host device: not comparable"));
  EXPECT_THAT(text, Not(HasSubstr("-17.6")));
  EXPECT_THAT(text, Not(HasSubstr("adds -")));
  // Flushes in their own column: 1000/s on both rows.
  EXPECT_THAT(LineStarting(text, kLayerApp), HasSubstr(" 1000 "));
  EXPECT_THAT(LineStarting(text, kLayerHostDevice), HasSubstr(" 1000 "));
}

// Regression: the diskstats rung's 1 ms resolution was printed as "+/-0.00" under a
// "depth +/-95%" heading, like the virtqueue's sampled interval. Each says what it is.
TEST(LadderTextTest, BoundsIntervalsAndRefusalsAreLabelledDifferently) {
  Ladder guest = Guest();
  LayerStats vq = Layer(kLayerVirtqueue, 1.3);
  vq.has_depth_interval = true;
  vq.depth_ci95 = 0.33;
  vq.depth_samples = 209;
  vq.interval_basis = "209 point samples, about 31 effective";
  guest.layers[2] = vq;
  const std::string text = RenderLadder("t", guest, std::nullopt);
  EXPECT_THAT(LineStarting(text, kLayerGuestBlock), HasSubstr("31.8 +/-0.00 bound "));
  EXPECT_THAT(LineStarting(text, kLayerGuestBlock), Not(HasSubstr("95%")));
  EXPECT_THAT(LineStarting(text, kLayerVirtqueue), HasSubstr("1.3 +/-0.33 95% "));
  EXPECT_THAT(LineStarting(text, kLayerApp), HasSubstr("32.0 exact"));
  EXPECT_THAT(text, HasSubstr("  note, L1 guest block: bound, not a statistical interval: "
                              "diskstats counters over the IO phase, 1 ms resolution\n"));
  EXPECT_THAT(text, HasSubstr("  note, L2 virtqueue: 95% interval from 209 point samples, about "
                              "31 effective\n"));
  guest.layers[2].has_depth_interval = false;
  guest.layers[2].interval_refused = "about 4 effective samples of 60";
  const std::string refused = RenderLadder("t", guest, std::nullopt);
  EXPECT_THAT(LineStarting(refused, kLayerVirtqueue), HasSubstr("1.3 no interval "));
  EXPECT_THAT(refused,
              HasSubstr("  note, L2 virtqueue: no interval: about 4 effective samples of 60\n"));
}

TEST(LadderTextTest, MediansOverRepeatsWithRangeAndReadings) {
  Ladder a = Guest(), b = Guest(), c = Guest();
  b.layers[1].avg_depth = 20;
  c.layers[1].avg_depth = 25;
  const std::string text = RenderLadderMedians("median over 3 repeats: x", {&a, &b, &c});
  EXPECT_THAT(LineStarting(text, kLayerGuestBlock), HasSubstr("25.00 [20.00-31.80]"));
  EXPECT_THAT(LineStarting(text, kLayerVirtqueue), HasSubstr("measured in 0 of 3"));
  EXPECT_THAT(text, HasSubstr("readings over the repeats: 3 of 3: cap not judged"));
}

}  // namespace
}  // namespace storbed
