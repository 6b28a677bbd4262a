#include "judging/change_scan.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "judging/seeded_draws.h"
#include "judging/simulated_levels_for_test.h"

namespace storbed {
namespace {

using testing_support::FoundNear;
using testing_support::Levels;
using testing_support::LogSd;
using testing_support::Truth;

// The share of `series` simulated series where `hit` holds.
template <typename Hit>
double Rate(const Truth& truth, size_t series, uint64_t seed, Hit hit) {
  SeededDraws draws(seed);
  size_t hits = 0;
  for (size_t i = 0; i < series; ++i) hits += hit(FindLevelChanges(Levels(truth, draws)));
  return double(hits) / double(series);
}

std::vector<double> Clean(std::vector<double> low, std::vector<double> high) {
  low.insert(low.end(), high.begin(), high.end());
  return low;
}

// --- the mechanics ---

TEST(ScanLevels, TenNightsSplitSixAgainstFourCleanlyHaveTheExactP2Over210) {
  const ScanResult r = ScanLevels(Clean({100, 101, 99, 102, 98, 100.5}, {150, 152, 149, 151}));
  EXPECT_TRUE(r.exact);
  EXPECT_EQ(r.begin, 0u);
  EXPECT_EQ(r.end, 6u);
  EXPECT_NEAR(r.p, 2.0 / 210, 1e-12);  // the four high nights at either end, of C(10, 4)
}

TEST(ScanLevels, SevenAgainstThreeCannotReachOnePercentInTenNights) {
  const ScanResult r = ScanLevels(Clean({100, 101, 99, 102, 98, 100.5, 99.5}, {200, 201, 199}));
  EXPECT_NEAR(r.p, 2.0 / 120, 1e-12);
  EXPECT_GT(r.p, ChangeScanOptions{}.max_p);
}

TEST(ScanLevels, TenNightsSplitFiveAgainstFiveCleanlyHaveTheExactP2Over252) {
  const ScanResult r = ScanLevels(Clean({100, 101, 99, 102, 98}, {90, 91, 89, 92, 88}));
  EXPECT_EQ(r.end, 5u);
  EXPECT_NEAR(r.p, 2.0 / 252, 1e-12);
}

TEST(ScanLevels, ElevenNightsAreDrawnAndLandNearTheExactShare) {
  const ScanResult r =
      ScanLevels(Clean({100, 101, 99, 102, 98, 100.5}, {150, 152, 149, 151, 150.5}));
  EXPECT_FALSE(r.exact);
  EXPECT_EQ(r.end, 6u);
  EXPECT_NEAR(r.p, 2.0 / 462, 0.003);  // 2000 draws: about +-0.0015
}

TEST(ScanLevels, TheSameSeedGivesTheSameP) {
  SeededDraws draws(7);
  const std::vector<double> levels = Levels({.nights = 20, .steps = {{12, 0.93}}}, draws);
  const ScanResult a = ScanLevels(levels), b = ScanLevels(levels);
  EXPECT_EQ(a.p, b.p);
  ChangeScanOptions other;
  other.seed = 2;
  EXPECT_NE(a.p, ScanLevels(levels, other).p);
  EXPECT_GE(a.p, 1.0 / 2001);
}

TEST(ScanLevels, TooFewOrAlikeLevelsHaveNoChange) {
  EXPECT_EQ(ScanLevels({}).p, 1);
  EXPECT_EQ(ScanLevels({1, 2, 3}).p, 1);
  EXPECT_EQ(ScanLevels(std::vector<double>(20, 5.0)).p, 1);
  EXPECT_TRUE(FindLevelChanges({1, 1, 1, 1, 9, 9, 9, 9}, {.min_nights = 5}).empty());
}

TEST(ScanLevels, ALevelThatIsNotFiniteIsRefused) {
  EXPECT_THROW(ScanLevels({1, 2, NAN, 4}), std::invalid_argument);
  EXPECT_THROW(FindLevelChanges({1, 2, INFINITY, 4}), std::invalid_argument);
}

TEST(ScanLevels, AnUnchangedSeriesStopsDrawingEarlyAboveTheLevel) {
  SeededDraws draws(3);
  const ScanResult r = ScanLevels(Levels({.nights = 30, .steps = {}}, draws));
  EXPECT_GT(r.p, 0.01);
}

TEST(FindLevelChanges, ALevelThatComesBackIsTwoChanges) {
  SeededDraws draws(4);
  const auto changes =
      FindLevelChanges(Levels({.nights = 30, .cv = 0.02, .steps = {{10, 1.2}, {20, 1.0}}}, draws));
  ASSERT_EQ(changes.size(), 2u);
  EXPECT_EQ(changes[0].index, 10u);
  EXPECT_EQ(changes[1].index, 20u);
  EXPECT_NEAR(changes[0].ratio, 1.2, 0.03);
  EXPECT_NEAR(changes[1].ratio, 1 / 1.2, 0.03);
}

// A 3% step in a tight series is significant but below the default minimum change; the
// 30% step after it is reported, measured between the merged segments.
TEST(FindLevelChanges, TheMinimumChangeDropsASignificantDriftAndKeepsTheStep) {
  SeededDraws draws(5);
  const std::vector<double> levels =
      Levels({.nights = 36, .cv = 0.003, .steps = {{12, 1.03}, {24, 1.03 * 1.3}}}, draws);
  ChangeScanOptions every;
  every.min_change = 0;
  ASSERT_EQ(FindLevelChanges(levels, every).size(), 2u);
  const auto changes = FindLevelChanges(levels);
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].index, 24u);
  EXPECT_NEAR(changes[0].ratio, 1.3 * 1.03 / 1.015, 0.03);  // median of 24 nights: between
}

TEST(FindLevelChanges, TheMinimumChangeOnlyRemovesChanges) {
  SeededDraws draws(6);
  ChangeScanOptions every;
  every.min_change = 0;
  for (int i = 0; i < 30; ++i) {
    const auto levels = Levels({.nights = 30, .drift = 0.03, .steps = {{15, 0.95}}}, draws);
    const auto all = FindLevelChanges(levels, every);
    for (const LevelChange& c : FindLevelChanges(levels))
      EXPECT_TRUE(std::any_of(all.begin(), all.end(),
                              [&](const LevelChange& a) { return a.index == c.index; }));
  }
}

TEST(FindLevelChanges, ABadNightDoesNotHideAStep) {
  SeededDraws draws(8);
  std::vector<double> levels = Levels({.nights = 30, .cv = 0.03, .steps = {{15, 0.85}}}, draws);
  levels[7] *= 0.4;
  const auto changes = FindLevelChanges(levels);
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].index, 15u);
}

// With min_nights 2 the lowest and the highest night are pulled in to the next, so two
// nights at a new level still stand out.
TEST(FindLevelChanges, TwoNightsAtANewLevelAtTheEndAreAChange) {
  SeededDraws draws(10);
  const auto changes = FindLevelChanges(Levels({.nights = 30, .steps = {{28, 2.0}}}, draws));
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].index, 28u);
  EXPECT_LE(changes[0].p, 3.0 / 435);  // 2 / C(30, 2), drawn
}

TEST(FindLevelChanges, OneOddNightAtTheEndIsNoChange) {
  SeededDraws draws(9);
  std::vector<double> levels = Levels({.nights = 20, .steps = {}}, draws);
  levels.back() *= 0.5;
  EXPECT_TRUE(FindLevelChanges(levels).empty());
}

TEST(FindLevelChanges, LevelsThatAreNotAllPositiveAreTakenAsTheyAre) {
  const auto changes = FindLevelChanges({0, 2, 1, 2, 1, 10, 11, 10, 11, 10});
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].index, 5u);
  EXPECT_EQ(changes[0].ratio, 10);
}

// --- the acceptance rates, on a few hundred seeded series each (the long version:
// storbed-calibrate change-points) ---

TEST(ChangeScanCalibration, ATenPercentStepWithOneRunANightIsFoundWithinANight) {
  const double found =
      Rate({.steps = {{15, 0.9}}}, 500, 11, [](const auto& c) { return FoundNear(c, 15); });
  EXPECT_GE(found, 0.80);
  RecordProperty("found", std::to_string(found));
}

TEST(ChangeScanCalibration, UnchangedNightsWithDriftGiveAFalseChangeInAtMostFivePercent) {
  for (size_t runs : {1, 3, 5}) {
    const double false_rate = Rate({.runs = runs, .drift = 0.03, .steps = {}}, 500, 12 + runs,
                                   [](const auto& c) { return !c.empty(); });
    EXPECT_LE(false_rate, 0.05) << runs << " runs a night";
    RecordProperty("false_" + std::to_string(runs), std::to_string(false_rate));
  }
}

TEST(ChangeScanCalibration, ADoublingWithOneRunANightIsAlwaysFound) {
  EXPECT_EQ(Rate({.steps = {{15, 2.0}}}, 100, 21, [](const auto& c) { return FoundNear(c, 15); }),
            1.0);
}

TEST(ChangeScanCalibration, ALevelThatComesBackIsFoundAtBothEnds) {
  const double found = Rate({.steps = {{10, 1.2}, {20, 1.0}}}, 300, 22,
                            [](const auto& c) { return FoundNear(c, 10) && FoundNear(c, 20); });
  EXPECT_GE(found, 0.85);
  RecordProperty("found", std::to_string(found));
}

// Ten nights, one run: a doubling is found with at least four nights a side (2 / C(10, 4)
// = 0.0095), never with three (2 / C(10, 3) = 0.017).
TEST(ChangeScanCalibration, TenNightsFindADoublingOnlyWithFourNightsASide) {
  for (size_t at : {3, 4, 5, 6, 7}) {
    const double found = Rate({.nights = 10, .steps = {{at, 2.0}}}, 50, 30 + at,
                              [&](const auto& c) { return c.size() == 1 && c[0].index == at; });
    EXPECT_EQ(found, at >= 4 && at <= 6 ? 1.0 : 0.0) << "step at night " << at;
  }
}

}  // namespace
}  // namespace storbed
