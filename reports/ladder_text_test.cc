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
  return GuestLadder(GuestRandRead(), Missing(kLayerVirtqueue, "needs QEMU >= 7.2"),
                     Layer(kLayerQemuBlock, 3.9, 9990, 390.4), Layer(kLayerHostDevice, 3.8));
}

TEST(LadderTextTest, OneRowPerLayerWithFiguresOrReason) {
  const std::string text = RenderLadder("randread 4k qd32, virtio-blk", Guest(), std::nullopt);
  EXPECT_EQ(Lines(text).front(), "randread 4k qd32, virtio-blk");
  const std::string l1 = LineStarting(text, kLayerGuestBlock);
  EXPECT_THAT(l1, HasSubstr("31.8"));
  EXPECT_THAT(l1, HasSubstr("10000"));
  EXPECT_THAT(l1, HasSubstr("4.0"));
  EXPECT_THAT(l1, HasSubstr("3180.0"));
  EXPECT_THAT(l1, HasSubstr("/proc/diskstats vda"));
  EXPECT_THAT(LineStarting(text, kLayerVirtqueue), HasSubstr("not available: needs QEMU >= 7.2"));
  EXPECT_THAT(text, Not(HasSubstr("bare metal")));
  EXPECT_THAT(text, HasSubstr("largest depth loss: depth falls from 31.8 in the guest block "
                              "layer to 3.9 in QEMU's block layer\n"));
  EXPECT_THAT(text, HasSubstr("latency added: the application adds 20.0 us above the guest "
                              "block layer; the guest block layer adds 2789.6 us above QEMU's "
                              "block layer; QEMU's block layer itself takes 390.4 us\n"));
}

TEST(LadderTextTest, BareMetalSharesTheRowsOfL0AndL3) {
  JobResult bm = GuestRandRead();
  bm.block.device = "loop3";
  bm.block.avg_queue_depth = 31.7;
  bm.app_avg_depth = 31.9;
  const std::string text = RenderLadder("randread", Guest(), BareMetalLadder(bm));
  EXPECT_THAT(Lines(text)[1], HasSubstr("bare metal"));
  const std::string l0 = LineStarting(text, kLayerApp);
  EXPECT_THAT(l0, HasSubstr("31.9"));
  EXPECT_THAT(l0, Not(HasSubstr("bare metal:")));  // same source both sides, said once
  const std::string l3 = LineStarting(text, kLayerHostDevice);
  EXPECT_THAT(l3, HasSubstr("3.8"));
  EXPECT_THAT(l3, HasSubstr("31.7"));
  EXPECT_THAT(l3, HasSubstr("bare metal: /proc/diskstats loop3"));
  // A guest-only layer has dashes on the bare-metal side and no bare-metal source.
  EXPECT_THAT(LineStarting(text, kLayerQemuBlock), Not(HasSubstr("bare metal:")));
  EXPECT_THAT(text, HasSubstr("largest depth loss, bare metal: depth holds from the "
                              "application to the host device (31.9 -> 31.7)\n"));
  EXPECT_THAT(text, HasSubstr("latency added, bare metal: "));
}

TEST(LadderTextTest, UnavailableBareMetalLayerSaysWhy) {
  JobResult bm = GuestRandRead();
  bm.block = UnavailableBlockStats("no device: the backing is on tmpfs");
  const std::string text = RenderLadder("randread", Guest(), BareMetalLadder(bm));
  EXPECT_THAT(LineStarting(text, kLayerHostDevice),
              HasSubstr("bare metal: not available: no device: the backing is on tmpfs"));
  EXPECT_THAT(text, HasSubstr("largest depth loss, bare metal: depth cannot be compared: only "
                              "the application was measured (32.0)\n"));
  EXPECT_THAT(text, HasSubstr("latency added, bare metal: fewer than two layers have a mean "
                              "latency\n"));
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
  EXPECT_THAT(lines[1], HasSubstr("bare metal"));
  EXPECT_THAT(lines[1], Not(HasSubstr("guest")));
}

}  // namespace
}  // namespace storbed
