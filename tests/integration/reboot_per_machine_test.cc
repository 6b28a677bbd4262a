// reboot per_machine for real: interleaved rounds whose machines boot once and are paused
// between their rounds; with --until-conclusive, the machines of rounds that never come are
// shut down; Ctrl-C while machines are kept leaves no QEMU behind.
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "backend/child_process.h"
#include "results/results_dir.h"
#include "test_env.h"

namespace storbed {
namespace reboot_per_machine_test {  // named, not anonymous: a unity build joins files

namespace fs = std::filesystem;

TEST(RebootPerMachineTest, EachMachineBootsOnceAndServesEveryRound) {
  std::string why;
  if (testing::SharedGuestImage(&why).kernel_path.empty()) GTEST_SKIP() << why;
  const std::string dir = testing::ScratchDir("reboot-per-machine");
  std::ofstream(dir + "/s.json") << R"({"name": "pm", "targets": ["virtio-blk", "nvme",
      "bare-metal"], "machine": {"memory": "256m"}, "disk": {"size": "16m"},
      "order": "interleaved", "repeats": 3, "warmup": 1, "reboot": "per_machine",
      "jobs": [{"name": "r", "pattern": "random", "bs": "4k", "ioengine": "io_uring",
                "iodepth": 4, "runtime": 1}]})";
  const testing::CliRun run = testing::RunCli(
      {"run", dir + "/s.json", "--out", dir + "/out", "--work-dir", dir, "--image-cache",
       testing::ImageCacheDir()},
      dir + "/run.log");
  ASSERT_EQ(run.exit, "exited with status 0") << run.log;
  EXPECT_EQ(testing::Occurrences(run.log, "booting virtio-blk guest"), 1u) << run.log;
  EXPECT_EQ(testing::Occurrences(run.log, "booting nvme guest"), 1u) << run.log;
  EXPECT_EQ(testing::Occurrences(run.log, "kept paused since its last round"), 4u) << run.log;
  // Warm-ups warm a boot: the guests' first rounds run theirs, bare metal every round.
  EXPECT_EQ(testing::Occurrences(run.log, "1 warm-up run left out"), 4u) << run.log;
  EXPECT_EQ(testing::ManifestOf(dir + "/out")["machines"].size(), 2u);
  // Three backings, one per kept guest and bare metal's; the second is filled while the
  // first guest boots, before its agent is up (and before it measures).
  EXPECT_EQ(testing::Occurrences(run.log, "preparing backing (16 MiB)"), 3u) << run.log;
  const size_t first_boot =
      std::min(run.log.find("booting virtio-blk guest"), run.log.find("booting nvme guest"));
  const size_t first_up = run.log.find(" up on guest kernel", first_boot);
  EXPECT_LT(run.log.find("preparing backing", first_boot), first_up) << run.log;
  const std::vector<RunRecord> records = LoadResults(dir + "/out");
  ASSERT_EQ(records.size(), 9u + 2 + 3);
  size_t warmups = 0;
  for (const RunRecord& r : records) {
    warmups += r.status == RunStatus::Warmup;
    if (r.status == RunStatus::Warmup) continue;
    EXPECT_EQ(r.status, RunStatus::Ok) << r.run_id << ": " << r.error;
    EXPECT_GT(r.result ? r.result->iops : 0, 0) << r.run_id;
    // Every round of a guest ran in the machine its first round booted, whose console
    // log holds all of them.
    if (r.target != "bare-metal") {
      EXPECT_EQ(r.machine, "machine-" + r.target + "-b1") << r.run_id;
      EXPECT_TRUE(fs::exists(dir + "/out/" + r.console_log)) << r.console_log;
    }
  }
  EXPECT_EQ(warmups, 5u);
  const auto efficiency = testing::ManifestOf(dir + "/out")["efficiency"];
  EXPECT_GT(efficiency["warmup_s"].get<double>(), 4.5) << efficiency.dump();
  EXPECT_NE(run.log.find("with the warm-ups'"), std::string::npos) << run.log;
  EXPECT_TRUE(testing::QemuPidsMentioning(dir).empty());
  // Kept machines had their own backings; all are gone with the work dirs.
  for (const auto& e : fs::directory_iterator(dir))
    EXPECT_EQ(e.path().filename().string().rfind("storbed-work-", 0), std::string::npos)
        << e.path();
  fs::remove_all(dir);
}

// Rounds the look made unnecessary never come: the kept machines are shut down at the end,
// each machine booted once however many rounds ran.
TEST(RebootPerMachineTest, KeptMachinesOfRoundsThatNeverComeAreShutDown) {
  std::string why;
  if (testing::SharedGuestImage(&why).kernel_path.empty()) GTEST_SKIP() << why;
  const std::string dir = testing::ScratchDir("reboot-per-machine-until");
  std::ofstream(dir + "/s.json") << R"({"name": "u", "targets": ["virtio-blk"],
      "order_seed": 2, "machine": {"memory": "256m"}, "reboot": "per_machine",
      "disk": {"size": "16m", "driver": "null-co", "null_latency": ["2ms", "20ms"]},
      "jobs": [{"name": "r", "pattern": "random", "ioengine": "psync", "runtime": 1}]})";
  const testing::CliRun run = testing::RunCli(
      {"run", dir + "/s.json", "--out", dir + "/out", "--work-dir", dir, "--image-cache",
       testing::ImageCacheDir(), "--until-conclusive", "--by", "disk.null_latency", "--budget",
       "12"},
      dir + "/run.log");
  ASSERT_EQ(run.exit, "exited with status 0") << run.log;
  const auto manifest = testing::ManifestOf(dir + "/out");
  const std::string stopped = manifest["sequential"].value("stopped", "");
  ASSERT_EQ(stopped.rfind("conclusive at round ", 0), 0u) << manifest["sequential"].dump(2);
  const size_t stop = std::stoul(stopped.substr(20));
  EXPECT_EQ(manifest["machines"].size(), 2u);  // booted once, whatever the rounds
  EXPECT_EQ(LoadResults(dir + "/out").size(), 2 * stop);
  EXPECT_EQ(testing::Occurrences(run.log, "booting virtio-blk guest"), 2u) << run.log;
  EXPECT_EQ(run.log.find("warning"), std::string::npos) << run.log;
  EXPECT_TRUE(testing::QemuPidsMentioning(dir).empty());
  fs::remove_all(dir);
}

TEST(RebootPerMachineTest, CtrlCWhileMachinesAreKeptLeavesNoQemu) {
  std::string why;
  if (testing::SharedGuestImage(&why).kernel_path.empty()) GTEST_SKIP() << why;
  const std::string dir = testing::ScratchDir("reboot-per-machine-ctrl-c");
  std::ofstream(dir + "/s.json") << R"({"name": "c", "targets": ["virtio-blk", "nvme"],
      "machine": {"memory": "256m"}, "disk": {"size": "16m"},
      "order": "interleaved", "repeats": 20, "reboot": "per_machine",
      "jobs": [{"name": "r", "pattern": "random", "ioengine": "psync", "runtime": 1}]})";
  const testing::CliRun run = testing::RunCli(
      {"run", dir + "/s.json", "--out", dir + "/out", "--work-dir", dir, "--image-cache",
       testing::ImageCacheDir()},
      dir + "/run.log", [&](ChildProcess& cli) {
        ASSERT_TRUE(testing::WaitForLogLine(dir + "/run.log", "kept paused since its last round"));
        kill(cli.Pid(), SIGINT);
      });
  EXPECT_EQ(run.exit, "exited with status 130") << run.log;
  EXPECT_TRUE(testing::ManifestOf(dir + "/out").value("interrupted", false)) << run.log;
  EXPECT_TRUE(testing::QemuPidsMentioning(dir).empty());
  EXPECT_FALSE(LoadResults(dir + "/out").empty());
  fs::remove_all(dir);
}

}  // namespace reboot_per_machine_test
}  // namespace storbed
