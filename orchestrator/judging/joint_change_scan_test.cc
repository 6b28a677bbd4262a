#include "judging/joint_change_scan.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <stdexcept>

#include "judging/simulated_levels_for_test.h"

namespace storbed {
namespace joint_change_scan_test {  // named, not anonymous: a unity build joins files

using testing_support::Levels;
using testing_support::Truth;

constexpr double kNone = std::numeric_limits<double>::quiet_NaN();

// Ten nights of small, fixed wobble around 1000, stepping to 800 from night 7 when `step`.
std::vector<double> Series(bool step, int phase) {
  const double wobble[] = {1.01, 0.99, 1.02, 0.98, 1.0, 1.01, 0.99, 1.0, 1.02, 0.98};
  std::vector<double> out;
  for (int n = 0; n < 10; ++n)
    out.push_back((step && n >= 6 ? 800 : 1000) * wobble[(n + phase) % 10]);
  return out;
}

TEST(JointChangeScanTest, AStepOnEverySeriesIsOneJointStepWithEachSeriesRatio) {
  const auto steps = FindJointSteps({Series(true, 0), Series(true, 3), Series(true, 7)});
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_EQ(steps[0].index, 6u);
  EXPECT_LE(steps[0].p, 0.01);
  ASSERT_EQ(steps[0].ratios.size(), 3u);
  for (double r : steps[0].ratios) EXPECT_NEAR(r, 0.8, 0.03);
  for (double p : steps[0].series_p) EXPECT_LE(p, 0.05);
}

TEST(JointChangeScanTest, AStepOnOneSeriesAloneIsNoJointStep) {
  EXPECT_TRUE(FindJointSteps({Series(false, 0), Series(true, 3), Series(false, 7)}).empty());
}

TEST(JointChangeScanTest, OneSeriesOrNoneHasNoJointStep) {
  EXPECT_TRUE(FindJointSteps({Series(true, 0)}).empty());
  EXPECT_TRUE(FindJointSteps({}).empty());
}

TEST(JointChangeScanTest, ANightASeriesMissedIsLeftOutNotCounted) {
  std::vector<double> holed = Series(true, 3);
  holed[2] = kNone;
  holed[8] = kNone;
  const auto steps = FindJointSteps({Series(true, 0), holed, Series(true, 7)});
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_EQ(steps[0].index, 6u);
  EXPECT_NEAR(steps[0].ratios[1], 0.8, 0.03);
}

TEST(JointChangeScanTest, TooFewLevelsInASeriesIsNoJointStep) {
  std::vector<double> sparse(10, kNone);
  sparse[0] = 1000;
  sparse[9] = 800;
  EXPECT_TRUE(FindJointSteps({Series(true, 0), sparse, Series(true, 7)}).empty());
}

TEST(JointChangeScanTest, BadSeriesAreRefused) {
  EXPECT_THROW(FindJointSteps({Series(true, 0), {1, 2, 3}}), std::invalid_argument);
  std::vector<double> infinite = Series(true, 3);
  infinite[4] = std::numeric_limits<double>::infinity();
  EXPECT_THROW(FindJointSteps({Series(true, 0), infinite}), std::invalid_argument);
}

TEST(JointChangeScanTest, TwoSuiteStepsAreBothFound) {
  std::vector<std::vector<double>> levels;
  for (int phase : {0, 4, 8}) {
    std::vector<double> s = Series(false, phase), more = Series(false, phase + 1);
    s.insert(s.end(), more.begin(), more.end());
    for (size_t n = 6; n < s.size(); ++n) s[n] *= n < 14 ? 0.8 : 1.3;
    levels.push_back(s);
  }
  const auto steps = FindJointSteps(levels);  // 20 nights: drawn orderings
  ASSERT_EQ(steps.size(), 2u);
  EXPECT_EQ(steps[0].index, 6u);
  EXPECT_EQ(steps[1].index, 14u);
  EXPECT_NEAR(steps[1].ratios[0], 1.3 / 0.8, 0.05);  // against the segment at 0.8
}

// Seeded labs with a known truth (3 series x N nights, 3 runs a night at CV 5%, 2% drift;
// a shared night effect of 3% moves every series' night alike, as a lab's shared conditions
// would; 2000 labs a row, seed 7).
struct Rates {
  size_t found = 0, at_step = 0, labs = 0;
};

Rates Simulate(size_t nights, double step, size_t stepped_series, size_t labs, uint64_t seed) {
  SeededDraws draws(seed);
  Rates r;
  r.labs = labs;
  for (size_t l = 0; l < labs; ++l) {
    std::vector<double> shared;
    for (size_t n = 0; n < nights; ++n)
      shared.push_back(std::exp(testing_support::LogSd(0.03) * draws.Normal()));
    std::vector<std::vector<double>> levels;
    for (size_t s = 0; s < 3; ++s) {
      Truth t;
      t.nights = nights;
      t.runs = 3;
      t.drift = 0.02;
      if (s < stepped_series) t.steps = {{nights - 4, step}};
      std::vector<double> series = Levels(t, draws);
      for (size_t n = 0; n < nights; ++n) series[n] *= shared[n];
      levels.push_back(series);
    }
    const auto steps = FindJointSteps(levels);
    r.found += !steps.empty();
    for (const JointStep& s : steps) r.at_step += s.index + 5 >= nights && s.index + 3 <= nights;
  }
  return r;
}

TEST(JointChangeScanCalibration, UnchangedLabsGiveAJointStepInAtMostMaxP) {
  const Rates ten = Simulate(10, 1, 0, 2000, 7), twenty = Simulate(20, 1, 0, 2000, 8);
  // Measured (seeds 7, 8): 4 and 8 of 2000 (0.002, 0.004).
  EXPECT_LE(double(ten.found) / ten.labs, 0.01 + 3 * std::sqrt(0.01 * 0.99 / 2000));
  EXPECT_LE(double(twenty.found) / twenty.labs, 0.01 + 3 * std::sqrt(0.01 * 0.99 / 2000));
  std::printf("unchanged: 10 nights %zu/%zu, 20 nights %zu/%zu\n", ten.found, ten.labs,
              twenty.found, twenty.labs);
}

TEST(JointChangeScanCalibration, AStepOnEverySeriesIsFoundWhereItIs) {
  const Rates big = Simulate(10, 0.8, 3, 2000, 9), small = Simulate(10, 0.9, 3, 2000, 10);
  const Rates two = Simulate(10, 0.8, 2, 2000, 11);
  // Measured (seeds 9-11): 1956, 768 and 82 of 2000 (0.978, 0.384, 0.041). A night's level
  // has a spread of about 5% here (drift, the median of 3 runs, the shared night), so a 10%
  // step is 2 of them, with 6 nights before and 4 after.
  EXPECT_GE(double(big.at_step) / big.labs, 0.97);
  EXPECT_GE(double(small.at_step) / small.labs, 0.35);
  // Two of three series: every series' own test holds the third to series_p (0.05).
  EXPECT_LE(double(two.found) / two.labs, 0.05 + 3 * std::sqrt(0.05 * 0.95 / 2000));
  std::printf("20%% step on all 3: %zu/%zu at the step; 10%%: %zu/%zu; 20%% on 2 of 3: %zu/%zu\n",
              big.at_step, big.labs, small.at_step, small.labs, two.found, two.labs);
}

}  // namespace joint_change_scan_test
}  // namespace storbed
