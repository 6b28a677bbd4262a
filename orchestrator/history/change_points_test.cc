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

void Append(std::vector<std::vector<double>>& nights,
            const std::vector<std::vector<double>>& more) {
  nights.insert(nights.end(), more.begin(), more.end());
}

TEST(ChangePointsTest, AStepOfTenPercentIsFoundAtItsNightAndNowhereElse) {
  std::mt19937_64 rng(1);
  auto nights = Nights(6, 3, 1000, 0.02, rng);
  Append(nights, Nights(4, 3, 900, 0.02, rng));
  const auto changes = FindChangePoints(nights);
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].night, 6u);  // the seventh night
  EXPECT_NEAR(changes[0].ratio, 0.9, 0.02);
  EXPECT_NEAR(changes[0].p, 2.0 / 210, 1e-9);  // ten nights, exact: 6 v 4 cleanly apart
}

// Regression: the rule on runs (Mann-Whitney, p <= 0.001) could never find a change with one
// run a night in ten nights (its smallest p was 2/210); on nights, 2/210 is below 0.01.
TEST(ChangePointsTest, OneRunANightFindsADoublingInTenNights) {
  const auto changes =
      FindChangePoints({{1}, {1.1}, {1}, {1.05}, {1}, {1}, {2}, {2.1}, {2}, {2.05}});
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].night, 6u);
  EXPECT_NEAR(changes[0].ratio, 2.025, 0.01);
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

// A night is one level however many runs it has: twenty tight runs of one odd night are
// still one odd night.
TEST(ChangePointsTest, ANightOfManyRunsWeighsAsOneNight) {
  std::mt19937_64 rng(7);
  auto nights = Nights(14, 1, 1000, 0.03, rng);
  nights[7] = Nights(1, 20, 800, 0.001, rng)[0];
  EXPECT_TRUE(FindChangePoints(nights).empty());
}

TEST(ChangePointsTest, NightsWithoutRunsCountForTheIndexOnly) {
  std::mt19937_64 rng(8);
  auto nights = Nights(8, 2, 1000, 0.01, rng);
  nights[2].clear();
  Append(nights, {{}});
  Append(nights, Nights(6, 2, 1300, 0.01, rng));
  const auto changes = FindChangePoints(nights);
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].night, 9u);  // the first night with runs at the new level
  EXPECT_NEAR(changes[0].ratio, 1.3, 0.02);
}

// Six nights a piece: with five, four of the middle nights at an end rate about as high as
// the five inside, and p lands just above 0.01.
TEST(ChangePointsTest, ALevelThatComesBackIsTwoChanges) {
  std::mt19937_64 rng(4);
  auto nights = Nights(6, 4, 1000, 0.01, rng);
  Append(nights, Nights(6, 4, 1200, 0.01, rng));
  Append(nights, Nights(6, 4, 1000, 0.01, rng));
  const auto changes = FindChangePoints(nights);
  ASSERT_EQ(changes.size(), 2u);
  EXPECT_EQ(changes[0].night, 6u);
  EXPECT_EQ(changes[1].night, 12u);
  EXPECT_NEAR(changes[0].ratio, 1.2, 0.02);
}

// A drift of 3% (tight nights, so it is significant) is below the default min_change; with
// min_change 0 it is a change.
TEST(ChangePointsTest, ADriftSmallerThanMinChangeIsNoChange) {
  std::mt19937_64 rng(5);
  auto nights = Nights(5, 4, 1000, 0.002, rng);
  Append(nights, Nights(5, 4, 1030, 0.002, rng));
  EXPECT_TRUE(FindChangePoints(nights).empty());
  ChangePointOptions every;
  every.min_change = 0;
  const auto changes = FindChangePoints(nights, every);
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].night, 5u);
}

TEST(ChangePointsTest, TooFewNightsGiveNothing) {
  EXPECT_TRUE(FindChangePoints({}).empty());
  EXPECT_TRUE(FindChangePoints({{1}, {2}, {100}}).empty());
  EXPECT_TRUE(FindChangePoints({{1}, {}, {}, {1}, {100}, {}, {100}}).empty());  // 4 levels
  // Seven against three nights cannot reach p <= 0.01 (exact: 2 / C(10, 3) = 0.017).
  EXPECT_TRUE(
      FindChangePoints({{1}, {1.1}, {1}, {1.05}, {1}, {1}, {1.02}, {2}, {2.1}, {2}}).empty());
}

}  // namespace
}  // namespace storbed
