#include "plan/run_plan.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "test_paths.h"

namespace storbed {
namespace {

Scenario Parse(const std::string& text) { return ParseScenario(text, "m.json"); }

std::vector<std::string> Ids(const std::vector<PlannedRun>& runs) {
  std::vector<std::string> ids;
  for (const auto& r : runs) ids.push_back(r.run_id);
  return ids;
}

TEST(RunPlanTest, SingleValuedScenarioKeepsItsIds) {
  const auto runs = PlanScenario(Parse(R"({"name": "t", "targets": ["virtio-blk", "bare-metal"],
      "jobs": [{"name": "a"}, {"name": "b"}]})"))
                        .runs;
  EXPECT_EQ(Ids(runs), (std::vector<std::string>{"001-virtio-blk-a", "002-virtio-blk-b",
                                                 "003-bare-metal-a", "004-bare-metal-b"}));
  EXPECT_EQ(runs[0].params, (nlohmann::json{{"repeat", 1}, {"warmup", false}}));
}

TEST(RunPlanTest, ListsMakeAProductWithOneBootPerMachineCombination) {
  const Scenario s = Parse(R"({"name": "t", "targets": ["virtio-blk", "nvme", "bare-metal"],
      "disk": {"iothread": [false, true], "aio": ["threads", "native", "io_uring"]},
      "jobs": [{"name": "r", "bs": ["4k", "64k"]}]})");
  ASSERT_EQ(s.machines.size(), 6u);
  const RunPlan plan = PlanScenario(s);
  // Guests: 6 machines x 2 jobs per bus; bare metal: one backing x 2 jobs.
  EXPECT_EQ(plan.runs.size(), 6u * 2 * 2 + 2);
  EXPECT_EQ(plan.machines.size(), 13u);
  EXPECT_EQ(plan.machines[1].label, "virtio-blk-m2");
  EXPECT_EQ(plan.machines.back().label, "bare-metal");
  EXPECT_EQ(plan.runs[0].run_id, "001-virtio-blk-r-aio-threads-iothread0-bs4k");
  EXPECT_EQ(plan.runs[0].params["job.bs"], 4096);
  EXPECT_EQ(plan.runs[0].params["disk.aio"], "threads");
  EXPECT_FALSE(plan.runs.back().params.contains("disk.aio"));
  const auto all = Ids(plan.runs);
  const std::set<std::string> ids(all.begin(), all.end());
  EXPECT_EQ(ids.size(), plan.runs.size());
}

TEST(RunPlanTest, ExcludeDropsMatchingCombinations) {
  const Scenario s = Parse(R"({"name": "t", "targets": ["virtio-blk", "nvme"],
      "disk": {"aio": ["threads", "native"]},
      "matrix_exclude": [{"disk.aio": "native", "bs": "64k"}, {"target": "nvme", "job.bs": "4k"}],
      "jobs": [{"name": "r", "bs": ["4k", "64k"]}]})");
  const auto runs = PlanScenario(s).runs;
  // virtio-blk: threads x {4k, 64k} + native x {4k}; nvme: threads x {64k}.
  EXPECT_EQ(runs.size(), 4u);
  for (const auto& r : runs)
    EXPECT_FALSE(r.params["disk.aio"] == "native" && r.params["job.bs"] == 65536) << r.run_id;
}

TEST(RunPlanTest, RepeatsAndWarmupsInDeclaredOrder) {
  const auto runs = PlanScenario(Parse(R"({"name": "t", "targets": ["nvme"], "repeats": 2,
      "warmup": 1, "jobs": [{"name": "a"}, {"name": "b"}]})"))
                        .runs;
  EXPECT_EQ(Ids(runs), (std::vector<std::string>{"001-nvme-a-w1", "002-nvme-a-r1", "003-nvme-a-r2",
                                                 "004-nvme-b-w1", "005-nvme-b-r1",
                                                 "006-nvme-b-r2"}));
  EXPECT_TRUE(runs[0].warmup);
  EXPECT_EQ(runs[0].params["repeat"], 0);
  EXPECT_EQ(runs[2].params["repeat"], 2);
}

TEST(RunPlanTest, RandomOrderIsReproducibleBySeedAndKeepsMachinesTogether) {
  const std::string base = R"({"name": "t", "targets": ["virtio-blk", "nvme"], "order": "random",
      "repeats": 3, "disk": {"iothread": [false, true]},
      "jobs": [{"name": "a", "bs": ["4k", "8k", "16k"]}], "order_seed": )";
  const RunPlan one = PlanScenario(Parse(base + "7}"));
  const RunPlan again = PlanScenario(Parse(base + "7}"));
  const RunPlan other = PlanScenario(Parse(base + "8}"));
  EXPECT_EQ(Ids(one.runs), Ids(again.runs));
  EXPECT_NE(Ids(one.runs), Ids(other.runs));
  EXPECT_EQ(one.runs.size(), 4u * 3 * 3);
  for (const auto& m : one.machines) {
    EXPECT_EQ(m.run_count, 9u);
    for (size_t i = m.first_run; i < m.first_run + m.run_count; ++i) {
      EXPECT_EQ(one.runs[i].machine, m.machine);
      EXPECT_EQ(one.runs[i].target, m.target);
      // Rounds: every combination's repeat N comes before any repeat N+1.
      EXPECT_EQ(one.runs[i].params["repeat"], (i - m.first_run) / 3 + 1);
    }
  }
}

TEST(RunPlanTest, InterleavedBootsEveryMachineOncePerRoundInAShuffledOrder) {
  const std::string base = R"({"name": "t", "targets": ["virtio-blk", "bare-metal"],
      "order": "interleaved", "repeats": 4, "warmup": 1, "disk": {"cache": ["none", "writeback"]},
      "jobs": [{"name": "a", "bs": ["4k", "8k"]}], "order_seed": )";
  const RunPlan plan = PlanScenario(Parse(base + "3}"));
  // 2 guest machines + one bare-metal backing, each booted once per round.
  ASSERT_EQ(plan.machines.size(), 3u * 4);
  std::set<std::string> labels;
  std::vector<std::string> first_of_round;
  for (size_t u = 0; u < plan.machines.size(); ++u) {
    const PlannedMachine& m = plan.machines[u];
    EXPECT_TRUE(labels.insert(m.label).second) << m.label;
    const size_t round = u / 3 + 1;
    EXPECT_NE(m.label.find("-b" + std::to_string(round)), std::string::npos) << m.label;
    if (u % 3 == 0) first_of_round.push_back(m.label.substr(0, m.label.find("-b")));
    // Each boot: a warm-up of both combinations, then repeat `round` of both.
    ASSERT_EQ(m.run_count, 4u);
    std::set<int> bs;
    for (size_t i = m.first_run; i < m.first_run + m.run_count; ++i) {
      const PlannedRun& r = plan.runs[i];
      EXPECT_EQ(r.machine, m.machine);
      EXPECT_EQ(r.warmup, i < m.first_run + 2);
      EXPECT_EQ(r.params["repeat"], r.warmup ? 0 : int(round));
      if (!r.warmup) bs.insert(r.params["job.bs"].get<int>());
    }
    EXPECT_EQ(bs, (std::set<int>{4096, 8192}));
  }
  // The rounds' orders are shuffled: not every round starts with the same machine.
  EXPECT_GT(std::set<std::string>(first_of_round.begin(), first_of_round.end()).size(), 1u);
  EXPECT_EQ(Ids(plan.runs), Ids(PlanScenario(Parse(base + "3}")).runs));
  EXPECT_NE(Ids(plan.runs), Ids(PlanScenario(Parse(base + "4}")).runs));
}

TEST(RunPlanTest, InterleavedOneMachineShufflesItsRoundsWithoutRebooting) {
  const RunPlan plan = PlanScenario(Parse(R"({"name": "t", "targets": ["virtio-blk"],
      "order": "interleaved", "repeats": 5, "order_seed": 2,
      "jobs": [{"name": "a", "read_ahead_kb": [0, 128]}]})"));
  ASSERT_EQ(plan.machines.size(), 1u);
  EXPECT_EQ(plan.machines[0].label, "virtio-blk");
  ASSERT_EQ(plan.runs.size(), 10u);
  size_t swapped = 0;  // rounds whose read_ahead_kb 128 ran first
  for (size_t i = 0; i < plan.runs.size(); i += 2) {
    EXPECT_EQ(plan.runs[i].params["repeat"], int(i / 2 + 1));
    EXPECT_EQ(plan.runs[i + 1].params["repeat"], int(i / 2 + 1));
    EXPECT_NE(plan.runs[i].params["job.read_ahead_kb"], plan.runs[i + 1].params["job.read_ahead_kb"]);
    swapped += plan.runs[i].params["job.read_ahead_kb"] == 128;
  }
  EXPECT_GT(swapped, 0u);
  EXPECT_LT(swapped, 5u);
}

TEST(RunPlanTest, DryRunCountsBootsAndEstimatesTime) {
  const Scenario s = Parse(R"({"name": "t", "targets": ["virtio-blk", "bare-metal"], "warmup": 1,
      "machine": {"vcpus": [1, 2]},
      "jobs": [{"name": "a", "runtime": 3}, {"name": "b", "io_size": "100m", "size": "32m"}]})");
  const DryRun d = PlanDryRun(s, "tcg");
  EXPECT_EQ(d.guest_boots, 2u);
  EXPECT_EQ(d.plan.runs.size(), (2u + 1) * 2 * 2);  // (2 machines + bare metal) x 2 jobs x 2
  EXPECT_EQ(d.warmup_runs, 6u);
  EXPECT_EQ(d.measured_runs, 6u);
  // 2 boots x 5 s; per job pair: 3 s + 1 s (100 MiB at 100 MiB/s); 2 s per run.
  EXPECT_DOUBLE_EQ(d.estimate_s, 2 * 5 + 6 * (3 + 1) + 12 * 2);
  EXPECT_DOUBLE_EQ(PlanDryRun(s, "kvm").estimate_s, d.estimate_s - 2 * 1);
}

// reboot per_machine keeps each machine across its rounds: the plan's units stay one per
// machine and round (interleaving is the same), the boots are one per machine.
TEST(RunPlanTest, RebootPerMachineBootsEachMachineOnceAndKeepsTheRounds) {
  const std::string base = R"({"name": "t", "targets": ["virtio-blk", "nvme", "bare-metal"],
      "order": "interleaved", "repeats": 4, "jobs": [{"name": "a", "runtime": 1}])";
  const DryRun per_round = PlanDryRun(Parse(base + "}"), "tcg");
  const DryRun per_machine = PlanDryRun(Parse(base + R"(, "reboot": "per_machine"})"), "tcg");
  EXPECT_EQ(per_round.guest_boots, 8u);
  EXPECT_EQ(per_machine.guest_boots, 2u);
  EXPECT_EQ(Ids(per_round.plan.runs), Ids(per_machine.plan.runs));
  EXPECT_DOUBLE_EQ(per_round.estimate_s - per_machine.estimate_s, 6 * 5);
  EXPECT_NE(RenderDryRun(Parse(base + R"(, "reboot": "per_machine"})"), per_machine, "tcg")
                .find("2 guest boots, order interleaved (reboot per_machine)"),
            std::string::npos);
  EXPECT_THROW(Parse(base + R"(, "reboot": "never"})"), ScenarioError);
}

TEST(RunPlanTest, MachineTunablesAreDefaultsAndAJobsOwnValueWins) {
  const Scenario s = ParseScenario(
      R"({"name": "t", "targets": ["virtio-scsi", "bare-metal"],
          "machine": {"read_ahead_kb": 512, "scheduler": "none"},
          "jobs": [{"name": "a"}, {"name": "b", "read_ahead_kb": 0}]})",
      "t.json");
  const std::vector<PlannedRun> runs = PlanScenario(s).runs;
  ASSERT_EQ(runs.size(), 4u);
  EXPECT_EQ(runs[0].run_id, "001-virtio-scsi-a");
  EXPECT_EQ(runs[0].job.tunables.read_ahead_kb, 512);
  EXPECT_EQ(runs[0].job.tunables.scheduler, "none");
  EXPECT_EQ(runs[1].job.tunables.read_ahead_kb, 0);
  EXPECT_EQ(runs[1].job.tunables.scheduler, "none");
  // The machine's tunables are the guest's: bare metal keeps the job's own.
  EXPECT_EQ(runs[2].job.tunables.read_ahead_kb, -1);
  EXPECT_EQ(runs[2].job.tunables.scheduler, "");
}

TEST(RunPlanTest, FilesystemMatrixGivesEachBareMetalImageItsOwnRuns) {
  const Scenario s = ParseScenario(
      R"({"name": "t", "targets": ["virtio-blk", "bare-metal"],
          "disk": {"filesystem": ["none", "ext4"], "iothread": [false, true]},
          "jobs": [{"name": "a"}]})",
      "t.json");
  const RunPlan plan = PlanScenario(s);
  // 4 guest machines, 2 bare-metal backings (iothread does not matter there).
  ASSERT_EQ(plan.machines.size(), 6u);
  std::vector<std::string> bare;
  for (const auto& r : plan.runs)
    if (r.target == TargetKind::BareMetal) bare.push_back(r.job.filesystem);
  EXPECT_EQ(bare, (std::vector<std::string>{"", "ext4"}));
  EXPECT_EQ(plan.runs[2].job.filesystem, "ext4");
  EXPECT_EQ(plan.runs[2].job.fs_file, "storbed.dat");
}

TEST(RunPlanTest, NullCoMachinesHaveNoBareMetalTwin) {
  const Scenario s = ParseScenario(
      R"({"name": "t", "disk": {"driver": ["file", "null-co"]},
          "targets": ["virtio-blk", "bare-metal"],
          "matrix_exclude": [{"target": "bare-metal", "disk.driver": "null-co"}],
          "jobs": [{"name": "a"}]})",
      "t.json");
  size_t bare = 0;
  for (const auto& r : PlanScenario(s).runs) bare += r.target == TargetKind::BareMetal;
  EXPECT_EQ(bare, 1u);
}

TEST(RunPlanTest, EveryBundledScenarioValidatesAndPlans) {
  size_t count = 0;
  for (const auto& entry : std::filesystem::directory_iterator(TestSourceDir() + "/scenarios")) {
    if (entry.path().extension() != ".json") continue;
    SCOPED_TRACE(entry.path().string());
    const Scenario s = LoadScenario(entry.path().string());
    EXPECT_FALSE(s.description.empty());
    EXPECT_FALSE(PlanScenario(s).runs.empty());
    ++count;
  }
  EXPECT_GE(count, 13u);
}

}  // namespace
}  // namespace storbed
