#include "analysis/depth_loss.h"

#include <gtest/gtest.h>

#include "analysis/test_support.h"

namespace storbed {
namespace {

using testing_support::Layer;
using testing_support::Missing;

Ladder Of(std::vector<LayerStats> layers) { return Ladder{std::move(layers)}; }

TEST(DepthLossTest, SkipsUnavailableLayersBetween) {
  const DepthLoss loss = LargestDepthLoss(Of({
      Layer(kLayerApp, 32),
      Layer(kLayerGuestBlock, 31.8),
      Missing(kLayerVirtqueue, "needs QEMU >= 7.2"),
      Layer(kLayerQemuBlock, 3.9),
      Layer(kLayerHostDevice, 3.8),
  }));
  EXPECT_TRUE(loss.found);
  EXPECT_EQ(loss.from_layer, kLayerGuestBlock);
  EXPECT_EQ(loss.to_layer, kLayerQemuBlock);
  EXPECT_DOUBLE_EQ(loss.from_depth, 31.8);
  EXPECT_DOUBLE_EQ(loss.to_depth, 3.9);
  EXPECT_EQ(loss.sentence,
            "depth falls from 31.8 in the guest block layer to 3.9 in QEMU's block layer");
}

TEST(DepthLossTest, PicksLargestAbsoluteDrop) {
  const DepthLoss loss = LargestDepthLoss(Of({
      Layer(kLayerApp, 64), Layer(kLayerGuestBlock, 40),  // -24
      Layer(kLayerQemuBlock, 4),                          // -36
      Layer(kLayerHostDevice, 1),  // -3, the largest share but not the largest drop
  }));
  EXPECT_EQ(loss.from_layer, kLayerGuestBlock);
  EXPECT_EQ(loss.to_layer, kLayerQemuBlock);
}

TEST(DepthLossTest, TieGoesToTheUpperStep) {
  const DepthLoss loss = LargestDepthLoss(Of({
      Layer(kLayerApp, 32),
      Layer(kLayerGuestBlock, 16),
      Layer(kLayerHostDevice, 0),
  }));
  EXPECT_TRUE(loss.found);
  EXPECT_EQ(loss.from_layer, kLayerApp);
  EXPECT_EQ(loss.to_layer, kLayerGuestBlock);
  EXPECT_EQ(loss.sentence,
            "depth falls from 32.0 in the application to 16.0 in the guest block layer");
}

TEST(DepthLossTest, HoldsWhenNoStepLosesTenPercent) {
  const DepthLoss loss = LargestDepthLoss(Of({
      Layer(kLayerApp, 32),
      Layer(kLayerGuestBlock, 31.8),
      Missing(kLayerVirtqueue, "needs QEMU >= 7.2"),
      Layer(kLayerQemuBlock, 31.2),
      Layer(kLayerHostDevice, 30.9),
  }));
  EXPECT_FALSE(loss.found);
  EXPECT_EQ(loss.from_layer, kLayerApp);
  EXPECT_EQ(loss.to_layer, kLayerHostDevice);
  EXPECT_EQ(loss.sentence, "depth holds from the application to the host device (32.0 -> 30.9)");
}

TEST(DepthLossTest, RisingDepthIsNoLoss) {
  // Splitting big IOs raises the depth below; that is not a loss.
  const DepthLoss loss = LargestDepthLoss(Of({Layer(kLayerApp, 1), Layer(kLayerHostDevice, 4)}));
  EXPECT_FALSE(loss.found);
  EXPECT_EQ(loss.sentence, "depth holds from the application to the host device (1.0 -> 4.0)");
}

TEST(DepthLossTest, SmallDepthsKeepTwoDecimals) {
  const DepthLoss loss =
      LargestDepthLoss(Of({Layer(kLayerApp, 0.96), Layer(kLayerHostDevice, 0.04)}));
  EXPECT_EQ(loss.sentence, "depth falls from 0.96 in the application to 0.04 in the host device");
}

TEST(DepthLossTest, FewerThanTwoMeasuredLayers) {
  EXPECT_EQ(LargestDepthLoss(Of({})).sentence, "depth cannot be compared: no layer was measured");
  const DepthLoss one =
      LargestDepthLoss(Of({Layer(kLayerApp, 31.8), Missing(kLayerHostDevice, "no device")}));
  EXPECT_FALSE(one.found);
  EXPECT_EQ(one.sentence, "depth cannot be compared: only the application was measured (31.8)");
}

TEST(DepthLossTest, LatencyAddedPerLayer) {
  const std::vector<LatencyStep> steps = LatencyAdded(Of({
      Layer(kLayerApp, 32, 10000, 3200),
      Layer(kLayerGuestBlock, 31.8, 10000, 3180),
      Layer(kLayerVirtqueue, 30),  // no latency: skipped
      Missing(kLayerQemuBlock, "no query-blockstats"),
      Layer(kLayerHostDevice, 30.9, 10000, 3090),
  }));
  ASSERT_EQ(steps.size(), 2u);
  EXPECT_EQ(steps[0].layer, kLayerApp);
  EXPECT_EQ(steps[0].below, kLayerGuestBlock);
  EXPECT_NEAR(steps[0].added_us, 20, 1e-9);
  EXPECT_EQ(steps[0].sentence, "the application adds 20.0 us above the guest block layer");
  EXPECT_EQ(steps[1].layer, kLayerGuestBlock);
  EXPECT_EQ(steps[1].below, kLayerHostDevice);
  EXPECT_NEAR(steps[1].added_us, 90, 1e-9);
  EXPECT_DOUBLE_EQ(steps[1].below_us, 3090);
  EXPECT_EQ(steps[1].sentence, "the guest block layer adds 90.0 us above the host device");
}

TEST(DepthLossTest, LatencyAddedNeedsTwoTimedLayers) {
  EXPECT_TRUE(LatencyAdded(Of({Layer(kLayerApp, 1, 100, 10), Layer(kLayerHostDevice, 1)})).empty());
}

TEST(DepthLossTest, HumanNames) {
  EXPECT_EQ(HumanLayerName(kLayerVirtqueue), "the virtqueue");
  EXPECT_EQ(HumanLayerName("L9 other"), "L9 other");
}

}  // namespace
}  // namespace storbed
