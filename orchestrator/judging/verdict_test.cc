#include "judging/verdict.h"

#include <gtest/gtest.h>

#include <cmath>

namespace storbed {
namespace {

std::vector<double> Around(double level, size_t n, double step = 0.004) {
  std::vector<double> out;
  for (size_t i = 0; i < n; ++i) out.push_back(level * (1 + step * (double(i) - double(n) / 2)));
  return out;
}

Judgement JudgeOne(const ShiftTest& t, Better d, size_t family = 1, VerdictRule rule = {}) {
  std::vector<FamilyMember> members(family, FamilyMember{&t, d});
  return JudgeFamily(members, rule).front();
}

TEST(Verdict, WorseAndBetterFollowTheMetricsDirection) {
  const ShiftTest lower = UnpairedShift(Around(100, 8), Around(80, 8), Band::FromNoise(0.02));
  EXPECT_EQ(JudgeOne(lower, Better::Higher).verdict, Verdict::Worse);
  EXPECT_EQ(JudgeOne(lower, Better::Lower).verdict, Verdict::Better);
}

TEST(Verdict, NoChangeNeedsTheNinetyPercentIntervalInsideTheBandAndFiveRuns) {
  const ShiftTest same = UnpairedShift(Around(100, 8), Around(100.1, 8), Band::FromNoise(0.02));
  EXPECT_EQ(JudgeOne(same, Better::Higher).verdict, Verdict::NoChange);
  const ShiftTest four = UnpairedShift(Around(100, 4), Around(100.1, 4), Band::FromNoise(0.02));
  EXPECT_NE(JudgeOne(four, Better::Higher).verdict, Verdict::NoChange);
}

// Regression: 3 runs a side were accepted and a clean 20% regression came out
// "inconclusive ... about 3 runs a side would resolve +-2%", where 3 v 3 cannot give a p
// below 0.1 at all.
TEST(Verdict, UnreachableVerdictsAreRefusedWithTheRunsThatWouldReachThem) {
  const ShiftTest three = UnpairedShift(Around(100, 3), Around(120, 3), Band::FromNoise(0.02));
  const Judgement j = JudgeOne(three, Better::Lower);
  EXPECT_EQ(j.verdict, Verdict::TooFewRuns);
  EXPECT_EQ(j.resolution.runs_to_reach, 5u);
  EXPECT_NE(j.detail.find("5 runs a side can reach it"), std::string::npos) << j.detail;
  // 5 v 5 reaches alpha 0.01 alone, but not under Holm over 27 tests (needs 8).
  const ShiftTest five = UnpairedShift(Around(100, 5), Around(120, 5), Band::FromNoise(0.02));
  EXPECT_EQ(JudgeOne(five, Better::Lower).verdict, Verdict::Worse);
  const Judgement family = JudgeOne(five, Better::Lower, 27);
  EXPECT_EQ(family.verdict, Verdict::TooFewRuns);
  EXPECT_EQ(family.resolution.runs_to_reach, 8u);
}

TEST(Verdict, HolmAdjustsOverTheFamily) {
  const ShiftTest t = UnpairedShift(Around(100, 10), Around(80, 10), Band::FromNoise(0.02));
  const Judgement alone = JudgeOne(t, Better::Higher, 1);
  const Judgement many = JudgeOne(t, Better::Higher, 30);
  EXPECT_NEAR(*many.adjusted_p, std::min(1.0, 30 * t.p), 1e-12);
  EXPECT_NEAR(*alone.adjusted_p, t.p, 1e-15);
}

TEST(Verdict, InconclusiveSaysWhatTheRunsResolve) {
  std::vector<double> b = {100, 112, 91, 105, 97, 118, 88, 103, 95, 109};
  std::vector<double> c = {97, 109, 88, 102, 94, 115, 86, 100, 92, 106};
  const Judgement j = JudgeOne(UnpairedShift(b, c, Band::FromNoise(0.02)), Better::Higher);
  EXPECT_EQ(j.verdict, Verdict::Inconclusive);
  ASSERT_TRUE(j.resolution.shift);
  EXPECT_NE(j.detail.find("resolves ratios beyond"), std::string::npos) << j.detail;
  ASSERT_TRUE(j.resolution.runs_for_10);
  EXPECT_GT(*j.resolution.runs_for_10, 10u);
}

TEST(Verdict, ChangeShiftAndRatios) {
  EXPECT_NEAR(std::exp(-ChangeShift(0.1)), 0.9, 1e-15);
  EXPECT_EQ(RatioPair(ChangeShift(0.1)), "0.90 or 1.11");
}

// One check for compare, gate and run --until-conclusive. Before, run took alpha in
// [1e-9, 0.5] and noise in [0, 99] (CLI11 ranges), compare and gate alpha in (0, 1).
TEST(Verdict, TheRuleTakesAlphaUpToAHalfAndNoiseBelowAHundredPercent) {
  EXPECT_EQ(VerdictRuleProblem(0.01, 2), "");
  EXPECT_EQ(VerdictRuleProblem(0.5, 0), "");
  EXPECT_EQ(VerdictRuleProblem(1e-12, 99.5), "");
  for (const double alpha : {0.0, -0.1, 0.51, 1.0, 2.0, std::nan("")})
    EXPECT_EQ(VerdictRuleProblem(alpha, 2), "--alpha must be above 0 and at most 0.5") << alpha;
  for (const double noise : {-1.0, 100.0, 150.0, std::nan("")})
    EXPECT_EQ(VerdictRuleProblem(0.01, noise),
              "--noise must be a percentage from 0 to 100 (not 100)")
        << noise;
}

}  // namespace
}  // namespace storbed
