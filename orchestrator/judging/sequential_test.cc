#include "judging/sequential.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "judging/seeded_draws.h"

namespace storbed {
namespace {

TEST(SequentialLevels, OneLookSpendsAllOfAlpha) {
  const auto& levels = NominalLevels({.max_rounds = 8, .first_look = 8}, 0.05);
  ASSERT_EQ(levels.size(), 1u);
  EXPECT_NEAR(levels[0], 0.05, 1e-12);
}

TEST(SequentialLevels, PocockTypeLevelsAreNearlyFlatAndBelowAlpha) {
  const auto& levels = NominalLevels({.max_rounds = 20, .first_look = 5}, 0.01);
  ASSERT_EQ(levels.size(), 16u);
  for (double l : levels) {
    EXPECT_GT(l, 0.0005);
    EXPECT_LT(l, 0.01);
  }
  // Pocock-type: the first look spends the most at once (5/20 of the information).
  EXPECT_GT(levels.front(), levels[1]);
}

TEST(SequentialLevels, APlanWithoutLooksIsRefused) {
  EXPECT_THROW(NominalLevels({.max_rounds = 4, .first_look = 5}, 0.01), std::invalid_argument);
  EXPECT_THROW(NominalLevels({.max_rounds = 10, .first_look = 2}, 0.01), std::invalid_argument);
  EXPECT_THROW(NominalLevels({.max_rounds = kMaxSequentialRounds + 1, .first_look = 5}, 0.01),
               std::invalid_argument);
}

// The known truth: under no change the rounds' sum is a random walk, and the boundary's
// first crossings by each look must add up to the spending function (200000 seeded walks;
// 4 standard errors of the binomial).
TEST(SequentialLevels, SimulatedWalksCrossAsTheSpendingFunctionSays) {
  const SequentialPlan plan{.max_rounds = 20, .first_look = 5};
  const double alpha = 0.05;
  const auto& levels = NominalLevels(plan, alpha);
  std::vector<double> bound(levels.size());
  // z boundaries from the levels: P(|Z| >= c) = level.
  for (size_t i = 0; i < levels.size(); ++i) {
    double lo = 0, hi = 40;
    for (int k = 0; k < 100; ++k) {
      const double mid = (lo + hi) / 2;
      (std::erfc(mid / std::sqrt(2.0)) > levels[i] ? lo : hi) = mid;
    }
    bound[i] = hi;
  }
  SeededDraws draws(20261205);
  const size_t walks = 200000;
  std::vector<size_t> crossed(levels.size(), 0);
  for (size_t w = 0; w < walks; ++w) {
    double s = 0;
    for (size_t k = 1; k <= plan.max_rounds; ++k) {
      s += draws.Normal();
      if (k < plan.first_look) continue;
      const size_t look = k - plan.first_look;
      if (std::abs(s) / std::sqrt(double(k)) >= bound[look]) {
        ++crossed[look];
        break;
      }
    }
  }
  size_t cumulative = 0;
  for (size_t i = 0; i < levels.size(); ++i) {
    cumulative += crossed[i];
    const double expected =
        PocockSpending(double(plan.first_look + i) / plan.max_rounds, alpha);
    const double se = std::sqrt(expected * (1 - expected) / walks);
    EXPECT_NEAR(double(cumulative) / walks, expected, 4 * se) << "look " << i;
  }
}

ShiftTest PairedLook(const std::vector<double>& b, const std::vector<double>& c, size_t k,
                     double noise) {
  return PairedShift({b.begin(), b.begin() + k}, {c.begin(), c.begin() + k},
                     Band::FromNoise(noise));
}

// One family's runs over rounds: `tests` independent tests, cand = base * exp(shift).
std::vector<SequentialMember> SimulatedFamily(SeededDraws& draws, size_t tests, size_t rounds,
                                              double cv, double shift, size_t first_look,
                                              double noise) {
  std::vector<SequentialMember> family(tests);
  for (auto& m : family) {
    std::vector<double> b, c;
    for (size_t k = 0; k < rounds; ++k) {
      const double round = draws.Normal() * cv;  // a round-wide effect, cancelled by pairing
      b.push_back(100 * std::exp(round + cv * draws.Normal()));
      c.push_back(100 * std::exp(round + shift + cv * draws.Normal()));
    }
    for (size_t k = first_look; k <= rounds; ++k) {
      m.rounds.push_back(k);
      m.looks.push_back(PairedLook(b, c, k, noise));
    }
  }
  return family;
}

// A/A at the band's edge would be the hardest truth; no change itself is what users run.
// Over 2000 seeded families of 3 tests, 30 rounds, the family-wise false better/worse
// across every look stays at alpha (0.01) within 3 standard errors.
TEST(SequentialCalibration, AnAaFamilyIsCalledBetterOrWorseAtMostAlphaAcrossTheLooks) {
  const SequentialPlan plan{.max_rounds = 30, .first_look = 5};
  const VerdictRule rule{.alpha = 0.01, .noise = 0.0};
  SeededDraws draws(7);
  const size_t families = 2000;
  size_t false_calls = 0;
  for (size_t f = 0; f < families; ++f) {
    const auto family = SimulatedFamily(draws, 3, plan.max_rounds, 0.10, 0, plan.first_look, 0);
    const auto judged = JudgeSequentialFamily(family, plan, rule);
    bool any = false;
    for (const auto& j : judged) any |= j.verdict == Verdict::Better || j.verdict == Verdict::Worse;
    false_calls += any;
  }
  const double rate = double(false_calls) / families;
  EXPECT_LE(rate, 0.01 + 3 * std::sqrt(0.01 * 0.99 / families)) << rate;
}

TEST(SequentialFamily, ATwentyPercentDropIsCalledWorseEarly) {
  const SequentialPlan plan{.max_rounds = 40, .first_look = 5};
  const VerdictRule rule{.alpha = 0.01, .noise = 0.02};
  SeededDraws draws(11);
  size_t worse = 0, rounds = 0;
  const size_t families = 200;
  for (size_t f = 0; f < families; ++f) {
    const auto family =
        SimulatedFamily(draws, 1, plan.max_rounds, 0.05, std::log(0.8), plan.first_look, 0.02);
    const auto judged = JudgeSequentialFamily(family, plan, rule);
    worse += judged[0].verdict == Verdict::Worse;
    rounds += judged[0].decided_at ? judged[0].decided_at : plan.max_rounds;
    EXPECT_TRUE(judged[0].rci95.has_value());
  }
  EXPECT_GE(worse, families * 99 / 100);
  EXPECT_LE(double(rounds) / families, 8.0);  // within a few rounds of the first look (5)
}

TEST(SequentialFamily, NoChangeNeedsTheRepeatedIntervalInsideTheBand) {
  const SequentialPlan plan{.max_rounds = 40, .first_look = 5};
  const VerdictRule rule{.alpha = 0.01, .noise = 0.05};
  SeededDraws draws(3);
  // CV 1%: the repeated 90% interval of a true 0 shift fits in +-5% at the first look.
  const auto family = SimulatedFamily(draws, 2, plan.max_rounds, 0.01, 0, plan.first_look, 0.05);
  const auto judged = JudgeSequentialFamily(family, plan, rule);
  for (const auto& j : judged) {
    EXPECT_EQ(j.verdict, Verdict::NoChange) << j.detail;
    EXPECT_EQ(j.decided_at, 5u);
  }
}

TEST(SequentialFamily, AnOpenTestSaysWhereItStandsAndWhatWouldDecideIt) {
  const SequentialPlan plan{.max_rounds = 40, .first_look = 5};
  const VerdictRule rule{.alpha = 0.01, .noise = 0.02};
  SeededDraws draws(5);
  auto family = SimulatedFamily(draws, 1, 8, 0.10, std::log(0.97), plan.first_look, 0.02);
  const auto judged = JudgeSequentialFamily(family, plan, rule);
  EXPECT_EQ(judged[0].verdict, Verdict::Inconclusive);
  EXPECT_EQ(judged[0].decided_at, 0u);
  EXPECT_NE(judged[0].detail.find("open after 8 of 40 rounds, repeated 95% interval ["),
            std::string::npos)
      << judged[0].detail;
  EXPECT_NE(judged[0].detail.find("more rounds would decide it"), std::string::npos);
  // The progress line reads what would decide it apart from the rest of the detail.
  EXPECT_EQ(judged[0].to_decide.rfind("about ", 0), 0u) << judged[0].to_decide;
  EXPECT_EQ(judged[0].detail.substr(judged[0].detail.size() - judged[0].to_decide.size()),
            judged[0].to_decide);
}

// "About N more rounds" against a known truth: CAND 8% below BASE, run CV 10%, a plan of 200
// rounds. At the look after round 8 an open test's estimate is read, and the same runs are
// continued: the estimate projects the shift and spread seen so far, and a spread from 8
// rounds is often low, so it is optimistic. Measured over 400 seeded runs (seed 21): 0.35 of
// the runs were decided by the estimate and 0.61 by twice it (docs/compare.md says so).
TEST(SequentialCalibration, AboutNMoreRoundsIsAnOptimisticProjectionTwiceItDecidesMost) {
  const SequentialPlan plan{.max_rounds = 200, .first_look = 5};
  const VerdictRule rule{.alpha = 0.01, .noise = 0.02};
  SeededDraws draws(21);
  size_t estimated = 0, decided_by_then = 0, decided_by_twice = 0;
  for (int run = 0; run < 400; ++run) {
    const auto family = SimulatedFamily(draws, 1, 200, 0.10, std::log(0.92), plan.first_look,
                                        0.02);
    SequentialMember upto = family[0];
    const size_t look = 8 - plan.first_look;  // looks start at first_look
    upto.rounds.resize(look + 1);
    upto.looks.resize(look + 1);
    if (JudgeSequentialFamily({upto}, plan, rule)[0].decided_at) continue;
    const auto need = RoundsToDecide(upto.looks.back(), plan, rule, 1);
    if (!need || *need > 200) continue;
    ++estimated;
    const auto whole = JudgeSequentialFamily(family, plan, rule)[0];
    decided_by_then += whole.decided_at && whole.decided_at <= std::max<size_t>(*need, 8);
    decided_by_twice += whole.decided_at && whole.decided_at <= std::max<size_t>(2 * *need, 8);
  }
  ASSERT_GE(estimated, 100u);
  const double share = double(decided_by_then) / double(estimated);
  const double twice = double(decided_by_twice) / double(estimated);
  std::printf("about N more rounds: of %zu runs, %.2f decided by the estimate, %.2f by twice it\n",
              estimated, share, twice);
  EXPECT_GT(share, 0.25);
  EXPECT_LT(share, 0.50);
  EXPECT_GT(twice, 0.55);
}

// The known truth: CAND is 5% below BASE (log shift -0.0513), run CV 10%. The repeated 95%
// interval printed at the last look must hold the truth at every look at once, so over 1000
// seeded runs of 20 rounds it misses at some look in at most 5% (within 3 standard errors).
TEST(SequentialCalibration, TheRepeatedIntervalCoversTheTruthAtEveryLookAtOnce) {
  const SequentialPlan plan{.max_rounds = 20, .first_look = 5};
  const VerdictRule rule{.alpha = 0.01, .noise = 0.02};
  const double truth = std::log(0.95);
  SeededDraws draws(17);
  const size_t runs = 1000;
  size_t missed = 0;
  for (size_t i = 0; i < runs; ++i) {
    const auto family =
        SimulatedFamily(draws, 1, plan.max_rounds, 0.10, truth, plan.first_look, 0.02);
    bool miss = false;
    // The interval a run stopped at look k would print: the family judged on looks up to k.
    for (size_t k = 1; k <= family[0].rounds.size(); ++k) {
      SequentialMember upto = family[0];
      upto.rounds.resize(k);
      upto.looks.resize(k);
      const auto judged = JudgeSequentialFamily({upto}, plan, rule);
      ASSERT_TRUE(judged[0].rci95.has_value());
      miss |= truth < judged[0].rci95->low || truth > judged[0].rci95->high;
    }
    missed += miss;
  }
  const double rate = double(missed) / runs;
  EXPECT_LE(rate, 0.05 + 3 * std::sqrt(0.05 * 0.95 / runs)) << rate;
}

TEST(SequentialFamily, StopsOutOfReachOnlyFromHalfThePlanAfterLooksInARowAndBeforeTheEnd) {
  const SequentialPlan plan{.max_rounds = 40, .first_look = 5};
  EXPECT_FALSE(StopsOutOfReach(19, kOutOfReachLooks, plan));  // before half the plan
  EXPECT_TRUE(StopsOutOfReach(20, kOutOfReachLooks, plan));
  EXPECT_FALSE(StopsOutOfReach(20, kOutOfReachLooks - 1, plan));  // one look is not enough
  EXPECT_FALSE(StopsOutOfReach(40, kOutOfReachLooks, plan));      // the budget ends anyway
}

TEST(SequentialFamily, AShiftOnTheBandsEdgeIsOutOfReachAndAClearOneIsNot) {
  // 20 of 24 rounds run: the 4 left cannot decide a shift on the edge.
  const SequentialPlan plan{.max_rounds = 24, .first_look = 5};
  const VerdictRule rule{.alpha = 0.05, .noise = 0.02};
  SeededDraws draws(11);
  // Sitting on the edge: 2% lower with a 3% spread per round.
  const auto edge = SimulatedFamily(draws, 1, 20, 0.03, std::log(0.98), 5, 0.02);
  const auto judged_edge = JudgeSequentialFamily(edge, plan, rule);
  ASSERT_EQ(judged_edge.size(), 1u);
  EXPECT_FALSE(judged_edge[0].decided_at) << judged_edge[0].detail;
  EXPECT_TRUE(judged_edge[0].out_of_reach) << judged_edge[0].detail;
  // 10% lower with the same spread: decided, so never out of reach.
  const auto clear = SimulatedFamily(draws, 1, 20, 0.03, std::log(0.90), 5, 0.02);
  const auto judged_clear = JudgeSequentialFamily(clear, plan, rule);
  EXPECT_TRUE(judged_clear[0].decided_at);
  EXPECT_FALSE(judged_clear[0].out_of_reach);
}

TEST(SequentialFamily, BeforeTheFirstLookThereIsNoVerdict) {
  const SequentialPlan plan{.max_rounds = 40, .first_look = 5};
  SequentialMember m;
  const auto judged = JudgeSequentialFamily({m}, plan, VerdictRule{});
  EXPECT_EQ(judged[0].verdict, Verdict::TooFewRuns);
}

}  // namespace
}  // namespace storbed
