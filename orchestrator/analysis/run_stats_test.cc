#include "analysis/run_stats.h"

#include <gtest/gtest.h>

namespace storbed {
namespace {

// Reference values: numpy.median(v); numpy.std(v, ddof=1) / numpy.mean(v).
TEST(RunStatsTest, MedianAndCoefficientOfVariation) {
  const std::vector<double> v = {3, 1, 4, 1, 5, 9, 2, 6};
  EXPECT_DOUBLE_EQ(Median(v), 3.5);
  EXPECT_DOUBLE_EQ(Median({7, 1, 3}), 3);
  EXPECT_NEAR(CoefficientOfVariation(v), 0.7092583597261195, 1e-12);
  EXPECT_EQ(CoefficientOfVariation({5}), 0);
}

}  // namespace
}  // namespace storbed
