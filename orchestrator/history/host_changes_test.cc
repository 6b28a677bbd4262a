#include "history/host_changes.h"

#include <gtest/gtest.h>

#include <random>

#include "history/change_points.h"

namespace storbed {
namespace host_changes_test {  // named, not anonymous: a unity build joins files

const std::vector<std::string> kHosts = {"lab1", "lab2", "lab3"};

TEST(HostChangesTest, AStepOnEveryHostTheSameNightIsOneSuiteChange) {
  const auto changes =
      ClassifyChanges(kHosts, {{"lab2", 6, 0.7}, {"lab1", 6, 0.68}, {"lab3", 6, 0.71}});
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].scope, ChangeScope::Suite);
  EXPECT_EQ(changes[0].night, 6u);
  ASSERT_EQ(changes[0].changes.size(), 3u);
  EXPECT_EQ(changes[0].changes[0].host, "lab1");  // in the lab's host order
}

TEST(HostChangesTest, AStepOnOneHostIsThatHostsAlone) {
  const auto changes = ClassifyChanges(kHosts, {{"lab2", 4, 1.3}});
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].scope, ChangeScope::Host);
  EXPECT_EQ(changes[0].changes[0].host, "lab2");
}

TEST(HostChangesTest, ANightApartStillCountsAsOneNightsChange) {
  const auto changes =
      ClassifyChanges(kHosts, {{"lab1", 6, 0.7}, {"lab2", 7, 0.7}, {"lab3", 6, 0.7}});
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].scope, ChangeScope::Suite);
  EXPECT_EQ(changes[0].night, 6u);
}

TEST(HostChangesTest, OppositeDirectionsOrNightsFarApartAreSeparateChanges) {
  const auto changes =
      ClassifyChanges(kHosts, {{"lab1", 6, 0.7}, {"lab2", 6, 1.4}, {"lab3", 9, 0.7}});
  ASSERT_EQ(changes.size(), 3u);
  for (const LabChange& c : changes) EXPECT_EQ(c.scope, ChangeScope::Host);
}

TEST(HostChangesTest, TwoOfThreeHostsAreNamedNotCalledTheSuite) {
  const auto changes = ClassifyChanges(kHosts, {{"lab1", 6, 0.7}, {"lab3", 6, 0.7}});
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].scope, ChangeScope::SomeHosts);
  EXPECT_EQ(changes[0].changes.size(), 2u);
}

TEST(HostChangesTest, ALabOfOneHostHasOnlyHostChanges) {
  const auto changes = ClassifyChanges({"lab1"}, {{"lab1", 6, 0.7}});
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].scope, ChangeScope::Host);
}

TEST(HostChangesTest, TwoChangesOfOneHostCloseTogetherStayTwo) {
  const auto changes = ClassifyChanges(kHosts, {{"lab1", 4, 0.7}, {"lab1", 5, 0.7}});
  EXPECT_EQ(changes.size(), 2u);
}

TEST(HostChangesTest, TheNightIsTheStartsUtcDate) {
  EXPECT_EQ(NightOf("2026-12-07T02:00:03Z"), "2026-12-07");
}

// Simulated labs with a known truth: 3 hosts x 10 nights, 3 runs a night lognormal at CV 5%
// around the night's level, each night's level moved by 2% drift; a 20% step down from
// night 7 on every host, on two, on lab2 alone, or nowhere. Each host's series goes through
// FindChangePoints, the lab's through SuiteSteps, and both through ClassifyChanges, as
// `storbed history --by-host` sends them (seed 1, 1000 labs a row).
struct LabTruth {
  bool step_on[3];
  double cold_first_night = 1;  // every host's night 1 at this share of its level
  size_t nights = 10;
};

struct LabCounts {
  size_t suite_at_7 = 0, lab2_alone_at_7 = 0, any_suite = 0, joint = 0, labs = 0;
};

LabCounts SimulateLabs(const LabTruth& truth, size_t labs, std::mt19937_64& rng) {
  std::normal_distribution<double> run(0, 0.05), drift(0, 0.02);
  LabCounts counts;
  counts.labs = labs;
  for (size_t l = 0; l < labs; ++l) {
    std::vector<HostChange> found;
    std::vector<std::vector<std::vector<double>>> lab;
    for (size_t h = 0; h < 3; ++h) {
      std::vector<std::vector<double>> nights(truth.nights);
      for (size_t n = 0; n < nights.size(); ++n) {
        const double level = (truth.step_on[h] && n >= 6 ? 0.8 : 1.0) *
                             (n == 0 ? truth.cold_first_night : 1) * std::exp(drift(rng));
        for (int r = 0; r < 3; ++r) nights[n].push_back(1000 * level * std::exp(run(rng)));
      }
      for (const ChangePoint& cp : FindChangePoints(nights))
        found.push_back({kHosts[h], cp.night, cp.ratio});
      lab.push_back(std::move(nights));
    }
    const auto changes = ClassifyChanges(kHosts, found, {}, SuiteSteps(kHosts, lab));
    bool suite_at_7 = false, lab2_alone = false;
    for (const LabChange& c : changes) {
      counts.any_suite += c.scope == ChangeScope::Suite;
      counts.joint += c.joint;
      suite_at_7 |= c.scope == ChangeScope::Suite && c.night >= 5 && c.night <= 7;
      lab2_alone |= c.scope == ChangeScope::Host && c.changes[0].host == "lab2" && c.night >= 5 &&
                    c.night <= 7;
    }
    // Exactly one lab change, of the truth's kind.
    counts.suite_at_7 += suite_at_7 && changes.size() == 1;
    counts.lab2_alone_at_7 += lab2_alone && changes.size() == 1;
  }
  return counts;
}

TEST(HostChangesCalibration, SimulatedLabsTellTheSuitesStepFromOneHostsStep) {
  std::mt19937_64 rng(1);
  const LabCounts all = SimulateLabs({{true, true, true}}, 1000, rng);
  const LabCounts two = SimulateLabs({{true, false, true}}, 1000, rng);
  const LabCounts one = SimulateLabs({{false, true, false}}, 1000, rng);
  const LabCounts none = SimulateLabs({{false, false, false}}, 1000, rng);
  // A cold first night on every host (25% low, at the new level), the step on all: a limit,
  // not a goal. 5 nights are low, and the last 4 are among them in C(5,4)/C(10,4) = 0.024 of
  // orderings, above max_p 0.01, so at 10 nights no permutation test places the step
  // (measured: 0 of 1000); at 14 nights, 6 before and 8 after, in 0.046. It never makes a
  // suite change at another night.
  const LabCounts cold10 = SimulateLabs({{true, true, true}, 0.75}, 1000, rng);
  const LabCounts cold = SimulateLabs({{true, true, true}, 0.75, 14}, 1000, rng);
  EXPECT_EQ(cold10.any_suite, cold10.suite_at_7);
  EXPECT_EQ(cold.any_suite, cold.suite_at_7);
  // Measured (seed 1): 1000 of 1000 (all found jointly), 52 of 1000 for two hosts' step,
  // 962 lab2's alone and 0 suite for lab2's step, 0 for unchanged labs. Each host alone finds
  // its step at night 7 (or a night off) in about 0.95 of series, so before the joint scan
  // a suite change, which needed all three, was named in 0.905 of labs.
  EXPECT_GE(double(all.suite_at_7) / all.labs, 0.97) << all.suite_at_7;
  // A step on 2 of 3 hosts is called the suite's with chance at most every_host_p (0.05):
  // the unchanged host must pass its own test at the others' night. 0.07 is 0.05 and 3
  // standard errors of 1000 labs.
  EXPECT_LE(double(two.any_suite) / two.labs, 0.07) << two.any_suite;
  EXPECT_GE(double(one.lab2_alone_at_7) / one.labs, 0.93) << one.lab2_alone_at_7;
  EXPECT_LE(double(one.any_suite) / one.labs, 0.005) << one.any_suite;
  EXPECT_LE(double(none.any_suite) / none.labs, 0.01) << none.any_suite;
  std::printf(
      "suite step: %zu/%zu one suite change (%zu jointly); cold first night: %zu/%zu (10 "
      "nights: %zu); two "
      "hosts' step: %zu/%zu suite; lab2's step: %zu/%zu lab2's alone, %zu suite; unchanged: "
      "%zu/%zu suite\n",
      all.suite_at_7, all.labs, all.joint, cold.suite_at_7, cold.labs, cold10.suite_at_7,
      two.any_suite, two.labs, one.lab2_alone_at_7, one.labs, one.any_suite, none.any_suite,
      none.labs);
}

}  // namespace host_changes_test
}  // namespace storbed
