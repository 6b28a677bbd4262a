#include "execute/round_gate.h"

#include <gtest/gtest.h>

#include <optional>
#include <sstream>
#include <string>

#include "results/results_dir.h"
#include "execute/temp_dir.h"

namespace storbed {
namespace {

TEST(ParseBudgetTest, RoundsTimesAndBoth) {
  uint64_t rounds = 0;
  double s = 0;
  ParseBudget("40", &rounds, &s);
  EXPECT_EQ(rounds, 40u);
  EXPECT_EQ(s, 0);
  ParseBudget("30m", &rounds, &s);
  EXPECT_EQ(rounds, 0u);
  EXPECT_EQ(s, 1800);
  ParseBudget("12,2h", &rounds, &s);
  EXPECT_EQ(rounds, 12u);
  EXPECT_EQ(s, 7200);
  ParseBudget("90s", &rounds, &s);
  EXPECT_EQ(s, 90);
}

TEST(ParseBudgetTest, BadBudgetsAreRefusedByName) {
  uint64_t rounds = 0;
  double s = 0;
  for (const char* bad : {"", "ten", "4.5", "30x", "-3", "0", "40,", "2000"}) {
    try {
      ParseBudget(bad, &rounds, &s);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const ScenarioError& e) {
      EXPECT_NE(std::string(e.what()).find("--budget '" + std::string(bad) + "'"),
                std::string::npos)
          << e.what();
    }
  }
}

Scenario TwoLevelScenario(uint32_t repeats, RunOrder order = RunOrder::Interleaved) {
  Scenario s;
  s.path = "ab.json";
  s.repeats = repeats;
  s.order = order;
  s.expanded = {{"targets", {"bare-metal"}},
                {"jobs", {{{"name", "r"}, {"read_ahead_kb", {128, 4096}}}}}};
  return s;
}

TEST(UntilConclusiveOfTest, ChecksOrderFieldAndLooks) {
  RunOptions o;
  o.until_conclusive = true;
  o.until_by = "job.read_ahead_kb";
  const UntilConclusive c = UntilConclusiveOf(o, TwoLevelScenario(20));
  EXPECT_EQ(c.plan.max_rounds, 20u);
  EXPECT_EQ(c.plan.first_look, 5u);
  auto message = [&](const Scenario& s, const RunOptions& opt) {
    try {
      UntilConclusiveOf(opt, s);
    } catch (const ScenarioError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(message(TwoLevelScenario(20, RunOrder::Random), o).find("order: --until-conclusive "
                                                                    "needs interleaved rounds"),
            std::string::npos);
  EXPECT_NE(message(TwoLevelScenario(4), o).find("repeats 4 rounds leave no look"),
            std::string::npos);
  RunOptions other = o;
  other.until_by = "disk.cache";
  EXPECT_NE(message(TwoLevelScenario(20), other).find("--by disk.cache: the scenario does not "
                                                       "list two or more values"),
            std::string::npos);
  other.until_by = "";
  EXPECT_NE(message(TwoLevelScenario(20), other).find("needs --by FIELD"), std::string::npos);
  // alpha and noise by compare's check (judging/verdict.h), noise given here as a fraction.
  other = o;
  other.alpha = 0.6;
  EXPECT_EQ(message(TwoLevelScenario(20), other), "--alpha must be above 0 and at most 0.5");
  other = o;
  other.noise = 1;
  EXPECT_EQ(message(TwoLevelScenario(20), other),
            "--noise must be a percentage from 0 to 100 (not 100)");
  other.noise = 0.995;
  EXPECT_EQ(message(TwoLevelScenario(20), other), "accepted");
}

// Records of two levels of job.read_ahead_kb over `rounds` rounds: CAND's IOPS `ratio`
// times BASE's, with a little noise per round.
std::vector<RunRecord> Rounds(size_t rounds, double ratio) {
  std::vector<RunRecord> out;
  for (size_t r = 1; r <= rounds; ++r)
    for (int side = 0; side < 2; ++side) {
      RunRecord rec;
      rec.run_id = "r" + std::to_string(r) + "-" + std::to_string(side);
      rec.target = "bare-metal";
      rec.accel = "host";
      rec.status = RunStatus::Ok;
      rec.job.name = "r";
      rec.params = {{"job.read_ahead_kb", side ? 4096 : 128}, {"repeat", r}, {"warmup", false}};
      JobResult res;
      const double wobble = 1 + 0.01 * double((r * 7 + side * 3) % 5);
      res.iops = 1000 * (side ? ratio : 1.0) * wobble;
      res.latency.p50_us = 100 / (side ? ratio : 1.0) * wobble;
      res.latency.p99_us = 400 / (side ? ratio : 1.0) * wobble;
      rec.result = res;
      out.push_back(rec);
    }
  return out;
}

TEST(LookAtRoundsTest, AClearDropIsDecidedAtTheFirstLookAndLaterRoundsAreLeftOut) {
  UntilConclusive c;
  c.by = "job.read_ahead_kb";
  c.plan = {.max_rounds = 20, .first_look = 5};
  const nlohmann::json scenario = TwoLevelScenario(20).expanded;
  const LookSummary s = LookAtRounds(Rounds(8, 0.5), scenario, c, 5);
  EXPECT_EQ(s.rows, 3u);
  EXPECT_TRUE(s.open.empty());
  ASSERT_EQ(s.lines.size(), 3u);
  EXPECT_NE(s.lines[0].find("bare-metal r iops: worse, ratio 0.500"), std::string::npos)
      << s.lines[0];
}

TEST(LookAtRoundsTest, AnOpenTestSaysSo) {
  UntilConclusive c;
  c.by = "job.read_ahead_kb";
  c.plan = {.max_rounds = 20, .first_look = 5};
  const LookSummary s =
      LookAtRounds(Rounds(5, 0.99), TwoLevelScenario(20).expanded, c, 5);
  EXPECT_EQ(s.rows, 3u);
  EXPECT_FALSE(s.open.empty());
  bool open = false;
  for (const auto& l : s.lines) open |= l.find("; open") != std::string::npos;
  EXPECT_TRUE(open);
}

// A gate over `rounds` planned rounds of Rounds(rounds, ratio), run in plan order: every run
// it wants is recorded, as the executor would.
struct GatedRun {
  std::vector<RunRecord> recorded;
  std::optional<std::string> stopped;
  nlohmann::json record;  // the manifest's "sequential"
  std::string log;
};

GatedRun RunThroughGate(size_t rounds, double ratio) {
  const TempDir dir("/var/tmp", "storbed-round-gate-");
  ResultsDir results(dir.path() + "/out");
  Manifest manifest(results, ManifestDoc{});
  RunPlan plan;
  const std::vector<RunRecord> all = Rounds(rounds, ratio);
  for (const RunRecord& r : all)
    plan.runs.push_back({r.run_id, TargetKind::BareMetal, r.job, 0, r.params, false});
  UntilConclusive c;
  c.by = "job.read_ahead_kb";
  c.plan = {.max_rounds = rounds, .first_look = 5};
  GatedRun out;
  std::ostringstream text;
  LogSink sink(text);
  RoundGate gate(c, plan, TwoLevelScenario(uint32_t(rounds)).expanded,
                 [&] { return out.recorded; }, manifest, sink);
  for (size_t i = 0; i < plan.runs.size(); ++i)
    if (gate.Wanted(plan.runs[i])) out.recorded.push_back(all[i]);
  gate.Finish(false);
  out.stopped = gate.Stopped();
  out.record = manifest.Snapshot()["sequential"];
  out.log = text.str();
  return out;
}

// Once a look decides every test, no run of a later round is wanted, and the manifest says
// why the rounds stopped.
TEST(RoundGateTest, StopsAfterTheLookThatDecidesEverythingAndSaysSo) {
  const GatedRun run = RunThroughGate(20, 0.5);
  EXPECT_EQ(run.recorded.size(), 10u);  // rounds 1..5, both sides
  ASSERT_TRUE(run.stopped);
  EXPECT_EQ(*run.stopped, "conclusive at round 5");
  EXPECT_EQ(run.record["stopped"], "conclusive at round 5");
  EXPECT_EQ(run.record["looks"], nlohmann::json::array({5}));
  EXPECT_EQ(run.record["rounds_run"], 5);
  EXPECT_EQ(run.record["max_rounds"], 20);
  EXPECT_NE(run.log.find("every primary test decided at round 5"), std::string::npos) << run.log;
}

TEST(RoundGateTest, AnUndecidedRunSpendsItsRoundsAndSaysBudget) {
  const GatedRun run = RunThroughGate(6, 0.99);
  EXPECT_EQ(run.recorded.size(), 12u);
  EXPECT_EQ(run.record["stopped"], "budget: 6 rounds");
  EXPECT_EQ(run.record["looks"], nlohmann::json::array({5, 6}));
  EXPECT_FALSE(run.record["open"].empty());
}

// A shift on the band's edge (2% at the default +-2%) can be shown neither outside nor inside
// it: from half the plan on, two looks in a row at which no open test could be decided within
// the plan (at any shift its 90% interval allows) stop the rounds, and the manifest says why.
TEST(RoundGateTest, OpenTestsOutOfReachStopTheRoundsFromHalfThePlanOn) {
  const GatedRun run = RunThroughGate(20, 0.98);
  ASSERT_TRUE(run.stopped) << run.log;
  EXPECT_EQ(*run.stopped, "out of reach at round 16: 3 open tests could not be decided within 20 rounds")
      << run.log;
  EXPECT_EQ(run.recorded.size(), 32u);  // rounds 1..16, both sides
  EXPECT_EQ(run.record["rounds_run"], 16);
  EXPECT_EQ(run.record["open"].size(), 3u);
  // Out of reach once the rounds left are too few for any shift the intervals allow.
  EXPECT_NE(run.log.find("stopping after round 16: at 2 looks in a row"), std::string::npos)
      << run.log;
  EXPECT_NE(run.log.find("no practical number of rounds would decide it"), std::string::npos)
      << run.log;
}

// A test that its rounds will decide keeps the rounds going.
TEST(RoundGateTest, ATestWithinReachIsNotStoppedEarly) {
  const GatedRun run = RunThroughGate(20, 0.5);
  EXPECT_EQ(*run.stopped, "conclusive at round 5");
}

}  // namespace
}  // namespace storbed
