#include "history/change_points.h"

#include <gtest/gtest.h>

#include <random>

namespace storbed {
namespace {

// `count` nights of `runs` values around `level` with a relative spread `cv` (seeded).
std::vector<std::vector<double>> Nights(size_t count, size_t runs, double level, double cv,
                                        std::mt19937_64& rng) {
  std::normal_distribution<double> noise(0, cv);
  std::vector<std::vector<double>> out(count);
  for (auto& night : out)
    for (size_t r = 0; r < runs; ++r) night.push_back(level * (1 + noise(rng)));
  return out;
}

TEST(ChangePointsTest, AStepOfTenPercentIsFoundAtItsNightAndNowhereElse) {
  std::mt19937_64 rng(1);
  auto nights = Nights(6, 3, 1000, 0.02, rng);
  const auto after = Nights(4, 3, 900, 0.02, rng);
  nights.insert(nights.end(), after.begin(), after.end());
  const auto changes = FindChangePoints(nights);
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].night, 6u);  // the seventh night
  EXPECT_NEAR(changes[0].ratio, 0.9, 0.02);
  EXPECT_LE(changes[0].p, 0.001);
}

TEST(ChangePointsTest, AFlatSeriesHasNoChangeInTwentySeeds) {
  size_t false_changes = 0;
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    std::mt19937_64 rng(seed);
    false_changes += FindChangePoints(Nights(10, 3, 1000, 0.05, rng)).size();
  }
  EXPECT_LE(false_changes, 1u);
}

TEST(ChangePointsTest, OneOutlierNightAtTheEndIsNotAChange) {
  std::mt19937_64 rng(3);
  auto nights = Nights(9, 3, 1000, 0.02, rng);
  nights.push_back({700, 710, 690});
  EXPECT_TRUE(FindChangePoints(nights).empty());
}

TEST(ChangePointsTest, TwoStepsAreBothFound) {
  std::mt19937_64 rng(4);
  auto nights = Nights(5, 4, 1000, 0.01, rng);
  for (const auto& level : {Nights(5, 4, 1200, 0.01, rng), Nights(5, 4, 1000, 0.01, rng)})
    nights.insert(nights.end(), level.begin(), level.end());
  const auto changes = FindChangePoints(nights);
  ASSERT_EQ(changes.size(), 2u);
  EXPECT_EQ(changes[0].night, 5u);
  EXPECT_EQ(changes[1].night, 10u);
}

// A drift of 3% over an evening (tight runs, so it is significant) is below the default
// min_change; with min_change 0 it is a change.
TEST(ChangePointsTest, ADriftSmallerThanMinChangeIsNoChange) {
  std::mt19937_64 rng(5);
  auto nights = Nights(5, 4, 1000, 0.002, rng);
  const auto drifted = Nights(5, 4, 1030, 0.002, rng);
  nights.insert(nights.end(), drifted.begin(), drifted.end());
  EXPECT_TRUE(FindChangePoints(nights).empty());
  ChangePointOptions every;
  every.min_change = 0;
  const auto changes = FindChangePoints(nights, every);
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].night, 5u);
}

// The split with the smallest p among those that move the median enough is the change,
// even when a drift elsewhere has a smaller p.
TEST(ChangePointsTest, MinChangePicksTheLargeStepOverASignificantDrift) {
  std::mt19937_64 rng(6);
  auto nights = Nights(3, 4, 1000, 0.001, rng);
  for (const auto& level : {Nights(3, 4, 1030, 0.001, rng), Nights(4, 4, 1500, 0.05, rng)})
    nights.insert(nights.end(), level.begin(), level.end());
  ChangePointOptions options;
  options.min_change = 0.2;
  const auto changes = FindChangePoints(nights, options);
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].night, 6u);
  EXPECT_GT(changes[0].ratio, 1.3);
}

TEST(ChangePointsTest, TooFewNightsOrRunsGiveNothing) {
  EXPECT_TRUE(FindChangePoints({}).empty());
  EXPECT_TRUE(FindChangePoints({{1}, {2}, {100}}).empty());
  // One run a night: 6 vs 4 runs cannot reach p <= 0.001 (exact minimum 2/210).
  EXPECT_TRUE(FindChangePoints({{1}, {1.1}, {1}, {1.05}, {1}, {1}, {2}, {2.1}, {2}, {2}}).empty());
}

}  // namespace
}  // namespace storbed
