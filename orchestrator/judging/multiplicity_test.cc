#include "judging/multiplicity.h"

#include <gtest/gtest.h>

namespace storbed {
namespace {

// Reference: R's p.adjust(c(0.01, 0.04, 0.03, 0.005), "holm") = 0.03 0.06 0.06 0.02.
TEST(HolmAdjusted, MatchesRsPAdjust) {
  const auto adj = HolmAdjusted({0.01, 0.04, 0.03, 0.005});
  EXPECT_DOUBLE_EQ(*adj[0], 0.03);
  EXPECT_DOUBLE_EQ(*adj[1], 0.06);
  EXPECT_DOUBLE_EQ(*adj[2], 0.06);
  EXPECT_DOUBLE_EQ(*adj[3], 0.02);
}

TEST(HolmAdjusted, EntriesWithoutAValueAreNotInTheFamily) {
  const auto adj = HolmAdjusted({0.01, std::nullopt, 0.02});
  EXPECT_DOUBLE_EQ(*adj[0], 0.02);
  EXPECT_FALSE(adj[1].has_value());
  EXPECT_DOUBLE_EQ(*adj[2], 0.02);
}

TEST(HolmAdjusted, NeverAboveOne) {
  const auto adj = HolmAdjusted({0.6, 0.7, 0.9});
  for (const auto& a : adj) EXPECT_LE(*a, 1.0);
}

}  // namespace
}  // namespace storbed
