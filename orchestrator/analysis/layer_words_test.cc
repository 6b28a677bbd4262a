#include "analysis/layer_words.h"

#include <gtest/gtest.h>

namespace storbed {
namespace {

TEST(LayerWordsTest, SmallDepthsKeepTwoDecimals) {
  EXPECT_EQ(FormatDepth(0.04), "0.04");
  EXPECT_EQ(FormatDepth(31.84), "31.8");
  EXPECT_EQ(FormatDepth(0), "0.0");
}

TEST(LayerWordsTest, HumanNames) {
  EXPECT_EQ(HumanLayerName(kLayerVirtqueue), "the virtqueue");
  EXPECT_EQ(HumanLayerName("L9 other"), "L9 other");
}

}  // namespace
}  // namespace storbed
