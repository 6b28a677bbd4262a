#include "execute/run_steps.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include "backend/interrupt.h"
#include "execute/backing.h"
#include "execute/fake_backend_for_test.h"
#include "test_paths.h"

namespace storbed {
namespace {

using testing::FakeAgentScript;
using testing::FakeBackend;
using testing::FakeLog;

nlohmann::json ReadJson(const std::string& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

// A scenario file, a results dir and a work dir under the test's own temp dir, and
// RunDeps whose backend is the fake and whose image and accelerator are canned.
class RunStepsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // The pid keeps two checkouts' unit runs (CI and a developer, or the plain and the
    // sanitizer build) from removing each other's out dir mid-test.
    dir_ = ::testing::TempDir() + "/run-steps-" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name() + "-" +
           std::to_string(getpid());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_ + "/work");
    options_.scenario_path = dir_ + "/scenario.json";
    options_.out_dir = dir_ + "/out";
    options_.work_dir = dir_ + "/work";
    deps_.make_backend = [this](const RunHost&, const std::string&) {
      return std::make_unique<FakeBackend>(script_, log_);
    };
    deps_.build_image = [this](const MachineConfig& machine, const std::vector<std::string>&,
                               const RunOptions&) {
      ++images_built_;
      GuestImage image;
      image.kernel_path = "/boot/vmlinuz-" + machine.kernel;
      image.initrd_path = dir_ + "/initrd.cpio";
      image.content_hash = "hash-" + machine.kernel;
      return image;
    };
    deps_.decide_accel = [](const std::string&, const GuestImage&, const std::string&) {
      return AccelDecision{Accel::Tcg, "canned for the test"};
    };
    deps_.qemu_version = [] { return "QEMU emulator version 0.0 (fake)"; };
    deps_.check_inputs = [this](const Scenario&, const RunOptions&) { ++inputs_checked_; };
  }
  void TearDown() override {
    ClearInterrupted();
    std::filesystem::remove_all(dir_);
  }
  void WriteScenario(const std::string& text) { std::ofstream(options_.scenario_path) << text; }
  RunOutcome Run() { return RunScenarioWith(options_, deps_, log_text_); }

  std::string dir_;
  RunOptions options_;
  RunDeps deps_;
  FakeAgentScript script_;
  std::shared_ptr<FakeLog> log_ = std::make_shared<FakeLog>();
  std::ostringstream log_text_;
  int images_built_ = 0;
  int inputs_checked_ = 0;
};

constexpr const char* kTwoByTwoByTwo = R"({
  "name": "fake", "targets": ["virtio-blk", "nvme"], "repeats": 2,
  "machine": {"kernel": "6.1"}, "disk": {"driver": "null-co", "size": "16m"},
  "jobs": [{"name": "seq", "pattern": "sequential", "bs": "64k", "io_size": "1m"},
           {"name": "rand", "pattern": "random", "bs": "4k", "io_size": "1m"}]})";

TEST_F(RunStepsTest, TwoJobsTimesTwoTargetsTimesTwoRepeatsGiveEightRecordsInPlanOrder) {
  WriteScenario(kTwoByTwoByTwo);
  script_.run = [](const JobSpec& job) {
    return ResultReply{testing::CannedResult(job, job.name == "seq" ? 250 : 4000)};
  };
  const RunOutcome outcome = Run();
  ASSERT_EQ(outcome.records.size(), 8u);
  EXPECT_TRUE(outcome.failures.empty()) << (outcome.failures.empty() ? "" : outcome.failures[0]);
  const RunPlan plan = PlanScenario(LoadScenario(options_.scenario_path));
  ASSERT_EQ(plan.runs.size(), 8u);
  for (size_t i = 0; i < 8; ++i) {
    const RunRecord& r = outcome.records[i];
    SCOPED_TRACE(r.run_id);
    EXPECT_EQ(r.run_id, plan.runs[i].run_id);
    EXPECT_EQ(r.status, RunStatus::Ok);
    EXPECT_EQ(r.backend, "fake");
    EXPECT_EQ(r.accel, "tcg");
    EXPECT_EQ(r.device, r.target == "nvme" ? "/dev/nvme0n1" : "/dev/vda");
    ASSERT_TRUE(r.result);
    EXPECT_EQ(r.result->iops, r.job.name == "seq" ? 250 : 4000);
  }
  EXPECT_EQ(LoadResults(options_.out_dir).size(), 8u);
  // One boot and one shutdown per target, every job sent once.
  EXPECT_EQ(log_->booted.size(), 2u);
  EXPECT_EQ(log_->shutdowns.size(), 2u);
  EXPECT_EQ(log_->jobs.size(), 8u);
  EXPECT_EQ(images_built_, 1);
  EXPECT_EQ(inputs_checked_, 1);
}

TEST_F(RunStepsTest, AMachineThatDiesMidRunSkipsItsRestAndTheOtherMachineGoesOn) {
  WriteScenario(kTwoByTwoByTwo);
  script_.die_at_job = 1;  // every machine dies at its second job
  const RunOutcome outcome = Run();
  ASSERT_EQ(outcome.records.size(), 8u);
  std::map<std::string, std::vector<RunStatus>> by_target;
  for (const auto& r : outcome.records) by_target[r.target].push_back(r.status);
  for (const auto& [target, statuses] : by_target) {
    SCOPED_TRACE(target);
    EXPECT_EQ(statuses, (std::vector<RunStatus>{RunStatus::Ok, RunStatus::Failed,
                                                RunStatus::Skipped, RunStatus::Skipped}));
  }
  const RunRecord& died = outcome.records[1];
  EXPECT_NE(died.error.find("killed by signal 9"), std::string::npos) << died.error;
  EXPECT_EQ(outcome.records[2].error, "the guest died during " + died.run_id);
  EXPECT_EQ(outcome.failures.size(), 2u);  // skipped runs are not failures
  EXPECT_TRUE(log_->shutdowns.empty());    // a dead machine is not asked to power off
}

// Regression: after Ctrl-C the runs not yet done were missing from results.json.
TEST_F(RunStepsTest, CtrlCAfterTheFirstRunKeepsThatRecordAndMarksTheRestSkipped) {
  WriteScenario(kTwoByTwoByTwo);
  script_.interrupt_at_job = 1;
  const RunOutcome outcome = Run();
  EXPECT_TRUE(outcome.interrupted);
  const auto records = LoadResults(options_.out_dir);
  ASSERT_EQ(records.size(), 8u);
  EXPECT_EQ(records[0].status, RunStatus::Ok);
  EXPECT_EQ(records[1].status, RunStatus::Failed);
  EXPECT_EQ(records[1].error, "interrupted (a signal)");
  for (size_t i = 2; i < 8; ++i) {
    SCOPED_TRACE(records[i].run_id);
    EXPECT_EQ(records[i].status, RunStatus::Skipped);
    EXPECT_EQ(records[i].error, "interrupted before it ran");
  }
  EXPECT_EQ(outcome.records.size(), 8u);
  const auto manifest = ReadJson(options_.out_dir + "/manifest.json");
  EXPECT_EQ(manifest["interrupted"], true);
  EXPECT_TRUE(manifest.contains("finished_at"));
  EXPECT_EQ(log_->booted.size(), 1u);  // the second target never started
}

// Regression: when the out dir filled up, the timelines write failed first and the
// finished measurement never reached results.json.
TEST_F(RunStepsTest, AFailedTimelinesWriteIsAWarningOnAKeptRecord) {
  WriteScenario(R"({"name": "fake", "targets": ["nvme"], "machine": {"kernel": "6.1"},
                    "disk": {"driver": "null-co", "size": "16m"},
                    "jobs": [{"name": "seq", "bs": "64k", "io_size": "1m"}]})");
  script_.run = [](const JobSpec& job) {
    JobResult r = testing::CannedResult(job, 500);
    Timeline t{"guest.nvme0n1.inflight", "requests", {}, {}};
    t.Add(0, 1);
    r.timelines.push_back(t);
    return ResultReply{r};
  };
  const auto prepared = PrepareRun(options_, deps_, log_text_);
  std::ofstream(options_.out_dir + "/timelines") << "in the way";  // mkdir then fails
  const RunOutcome outcome = FinishRun(*prepared, ExecuteRun(*prepared, deps_));
  const auto records = LoadResults(options_.out_dir);
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].status, RunStatus::Ok);
  ASSERT_TRUE(records[0].result);
  EXPECT_EQ(records[0].result->iops, 500);
  EXPECT_EQ(records[0].timelines_file, "");
  ASSERT_TRUE(records[0].host.contains("warnings"));
  const std::string warning = records[0].host["warnings"].back();
  EXPECT_EQ(warning.rfind("timelines not kept: ", 0), 0u) << warning;
  EXPECT_TRUE(outcome.failures.empty());
}

// Regression: two runs into one --out both exited 0, the second deleting the first's
// sockets and records.
TEST_F(RunStepsTest, ASecondRunIntoTheSameOutDirRefusesWhileTheFirstHoldsIt) {
  WriteScenario(kTwoByTwoByTwo);
  const auto first = PrepareRun(options_, deps_, log_text_);
  try {
    PrepareRun(options_, deps_, log_text_);
    FAIL() << "the second run was not refused";
  } catch (const OutDirError& e) {
    EXPECT_EQ(std::string(e.what()), "--out " + options_.out_dir + ": another storbed run (pid " +
                                         std::to_string(getpid()) +
                                         ") is writing there; wait for it to end or give "
                                         "another --out");
  }
  EXPECT_EQ(FinishRun(*first, ExecuteRun(*first, deps_)).records.size(), 8u);
}

TEST_F(RunStepsTest, PrepareWritesThePlanBackingImageAndAccelBeforeAnyMachineBoots) {
  WriteScenario(kTwoByTwoByTwo);
  const auto run = PrepareRun(options_, deps_, log_text_);
  EXPECT_TRUE(log_->booted.empty());
  const auto manifest = ReadJson(options_.out_dir + "/manifest.json");
  EXPECT_EQ(manifest["plan"].size(), 8u);
  EXPECT_EQ(manifest["accel"]["accel"], "tcg");
  EXPECT_EQ(manifest["qemu_version"], "QEMU emulator version 0.0 (fake)");
  EXPECT_EQ(manifest["guest_image"]["content_hash"], "hash-6.1");
  EXPECT_EQ(manifest["guest_images"].size(), 1u);
  EXPECT_EQ(manifest["backing"]["null_co"], true);
  EXPECT_EQ(manifest["backings"].size(), 1u);
  EXPECT_FALSE(manifest.contains("finished_at"));
  EXPECT_EQ(run->accel.accel, Accel::Tcg);
}

TEST_F(RunStepsTest, FinishStampsTheEndAndTheHostsStatus) {
  WriteScenario(kTwoByTwoByTwo);
  script_.fail_boot = true;
  const auto run = PrepareRun(options_, deps_, log_text_);
  const RunOutcome outcome = FinishRun(*run, ExecuteRun(*run, deps_));
  EXPECT_EQ(outcome.failures.size(), 8u);
  const auto manifest = ReadJson(options_.out_dir + "/manifest.json");
  EXPECT_EQ(manifest["failures"].size(), 8u);
  EXPECT_TRUE(manifest.contains("finished_at"));
  ASSERT_EQ(manifest["hosts"].size(), 1u);
  EXPECT_EQ(manifest["hosts"][0]["status"], "ok");
  EXPECT_EQ(manifest["machines"].size(), 0u);
}

// Regression: each unit used to get a Scenario copy with .machine/.disk overwritten, and
// the runner read scenario.machine (machines[0]) where the unit's own variant was meant.
TEST_F(RunStepsTest, EachMachineOfAMatrixBootsWithItsOwnVariant) {
  WriteScenario(R"({
    "name": "fake", "targets": ["virtio-blk"],
    "machine": {"kernel": ["6.1", "6.2"], "vcpus": [1, 2]},
    "disk": {"driver": "null-co", "size": "16m", "num_queues": [1, 4]},
    "jobs": [{"name": "seq", "pattern": "sequential", "bs": "64k", "io_size": "1m"}]})");
  const RunOutcome outcome = Run();
  ASSERT_EQ(outcome.records.size(), 8u);
  ASSERT_EQ(log_->booted.size(), 8u);
  std::set<std::tuple<std::string, uint32_t, uint32_t>> seen;
  for (const auto& spec : log_->booted)
    seen.insert({spec.kernel, spec.vcpus, spec.disks.at(0).num_queues});
  EXPECT_EQ(seen.size(), 8u);
  EXPECT_EQ(images_built_, 2);  // one per kernel
  const auto manifest = ReadJson(options_.out_dir + "/manifest.json");
  EXPECT_EQ(manifest["guest_images"].size(), 2u);
  EXPECT_EQ(manifest["machines"].size(), 8u);
}

// The fake machine hands the job to the real agent binary: the whole orchestration and
// the agent's IO path, on a file, without a guest.
TEST_F(RunStepsTest, TheFakeMachineCanRunJobsThroughTheStandaloneAgent) {
  const std::string agent = TestAgentPath();
  if (!std::filesystem::exists(agent)) GTEST_SKIP() << agent << " is not built";
  const std::string file = dir_ + "/work/disk.raw";
  CreateFilledBacking(file, 4 << 20);
  script_.run = testing::StandaloneAgentRun(agent, file, dir_ + "/work");
  WriteScenario(R"({
    "name": "fake", "targets": ["virtio-blk"], "disk": {"driver": "null-co", "size": "4m"},
    "jobs": [{"name": "seq", "pattern": "sequential", "bs": "64k", "io_size": "1m",
              "direct": false, "cache": "keep", "invalidate": false}]})");
  const RunOutcome outcome = Run();
  ASSERT_EQ(outcome.records.size(), 1u);
  const RunRecord& r = outcome.records[0];
  ASSERT_EQ(r.status, RunStatus::Ok) << r.error;
  ASSERT_TRUE(r.result);
  EXPECT_EQ(r.result->bytes, 1u << 20);
  EXPECT_GT(r.result->iops, 0);
}

}  // namespace
}  // namespace storbed

namespace storbed {
namespace {

TEST(EfficiencyLineTest, SaysTheMeasuredShareAndTheShareWithWarmUps) {
  EXPECT_EQ(EfficiencyLine(40.3, 0, 50.8),
            "efficiency: 40.3 s of IO phases in 50.8 s of wall time (0.79)");
  EXPECT_EQ(EfficiencyLine(25.8, 13.7, 48.6),
            "efficiency: 25.8 s of IO phases in 48.6 s of wall time (0.53); with the warm-ups' "
            "13.7 s, 0.81");
  EXPECT_EQ(EfficiencyLine(0, 0, 0), "efficiency: 0.0 s of IO phases in 0.0 s of wall time (0.00)");
}

}  // namespace
}  // namespace storbed
