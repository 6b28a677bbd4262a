#include "judging/median_interval.h"

#include <gtest/gtest.h>

#include <cmath>

#include "judging/seeded_draws.h"

namespace storbed {
namespace {

TEST(MedianInterval, OrderStatisticsWithTheirCoverage) {
  EXPECT_FALSE(MedianIntervalOf({1, 2, 3, 4, 5}));  // 1 - 2/32 = 93.75% < 95%
  const auto six = MedianIntervalOf({6, 1, 5, 2, 4, 3});
  ASSERT_TRUE(six);
  EXPECT_EQ(six->low, 1);
  EXPECT_EQ(six->high, 6);
  EXPECT_NEAR(six->coverage, 1 - 2.0 / 64, 1e-12);
  // n = 10: P(B <= 1) = 11/1024 <= 0.025 < P(B <= 2) = 56/1024, so [x_(2), x_(9)].
  const auto ten = MedianIntervalOf({10, 9, 8, 7, 6, 5, 4, 3, 2, 1});
  EXPECT_EQ(ten->low, 2);
  EXPECT_EQ(ten->high, 9);
  EXPECT_NEAR(ten->coverage, 1 - 2 * 11.0 / 1024, 1e-12);
}

// Seeded simulation with a known truth: lognormal runs (median 1 exactly), CV 5% and 15%,
// n 6 to 30, 4000 sets each: the interval covers the true median at least 95% of the time.
TEST(MedianInterval, CoversTheTrueMedian) {
  SeededDraws draws(11);
  for (const double cv : {0.05, 0.15}) {
    const double sigma = std::sqrt(std::log1p(cv * cv));
    for (const size_t n : {6u, 10u, 20u, 30u}) {
      size_t covered = 0;
      const size_t sets = 4000;
      for (size_t s = 0; s < sets; ++s) {
        std::vector<double> x(n);
        for (double& v : x) v = std::exp(sigma * draws.Normal());
        const auto i = MedianIntervalOf(x);
        covered += i->low <= 1 && 1 <= i->high;
      }
      EXPECT_GE(double(covered) / sets, 0.94) << cv << " " << n;  // 0.95 less 3 std errors
    }
  }
}

}  // namespace
}  // namespace storbed
