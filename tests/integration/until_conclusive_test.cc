// storbed run --until-conclusive for real: rounds that stop at the look that decides every
// primary test (bare metal and guests), a budget spent with the open tests named, and Ctrl-C,
// after which compare still judges the directory with the looks' correction.
#include <gtest/gtest.h>
#include <signal.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "backend/child_process.h"
#include "results/results_dir.h"
#include "test_env.h"

namespace storbed {
namespace {

namespace fs = std::filesystem;

nlohmann::json Manifest(const std::string& out) {
  return nlohmann::json::parse(std::ifstream(out + "/manifest.json"));
}

// 4k against 1m sequential reads: every primary metric moves far beyond the band, so the
// first look (round 5) decides all three and rounds 6..12 never run.
TEST(UntilConclusiveTest, BareMetalStopsAtTheLookThatDecidesEverything) {
  const std::string dir = testing::ScratchDir("until-bare");
  std::ofstream(dir + "/s.json") << R"({"name": "u", "targets": ["bare-metal"],
      "disk": {"size": "32m"}, "order_seed": 1,
      "jobs": [{"name": "r", "bs": ["4k", "1m"], "ioengine": "psync", "runtime": 1}]})";
  const testing::CliRun run = testing::RunCli(
      {"run", dir + "/s.json", "--out", dir + "/out", "--work-dir", dir, "--until-conclusive",
       "--by", "job.bs", "--budget", "12"},
      dir + "/run.log");
  ASSERT_EQ(run.exit, "exited with status 0") << run.log;
  EXPECT_NE(run.log.find("until conclusive: look after round 5 of 12: 0 of 3 primary tests open"),
            std::string::npos)
      << run.log;
  const auto seq = Manifest(dir + "/out")["sequential"];
  EXPECT_EQ(seq["stopped"], "conclusive at round 5") << seq.dump(2);
  EXPECT_EQ(seq["looks"], nlohmann::json::array({5}));
  EXPECT_EQ(seq["max_rounds"], 12);
  EXPECT_EQ(seq["by"], "job.bs");
  EXPECT_EQ(LoadResults(dir + "/out").size(), 10u);  // 5 rounds x 2 levels, nothing after
  // The run says how much of its time measured: 10 IO phases of about 1 s.
  const auto efficiency = Manifest(dir + "/out")["efficiency"];
  EXPECT_GT(efficiency["io_phase_s"].get<double>(), 9.0) << efficiency.dump();
  EXPECT_GT(efficiency["wall_s"].get<double>(), efficiency["io_phase_s"].get<double>());
  EXPECT_NE(run.log.find("efficiency: "), std::string::npos) << run.log;
  // compare finds the field in the manifest and judges with the looks' rule.
  const testing::CliRun c = testing::RunCli({"compare", dir + "/out"}, dir + "/compare.log");
  EXPECT_EQ(c.exit, "exited with status 4") << c.log;  // 1m's IOPS are lower: "worse"
  EXPECT_NE(c.log.find("judged sequentially (storbed run --until-conclusive)"),
            std::string::npos)
      << c.log;
  EXPECT_NE(c.log.find("crossed the boundary at round 5"), std::string::npos) << c.log;
  fs::remove_all(dir);
}

// Two seeds of one random read: nothing changes, nothing is decided at round 5; Ctrl-C
// after that look leaves a directory whose manifest says so, and compare reads it with the
// correction for the looks taken.
TEST(UntilConclusiveTest, CtrlCLeavesADirectoryCompareJudgesWithTheLooksTaken) {
  const std::string dir = testing::ScratchDir("until-ctrl-c");
  std::ofstream(dir + "/s.json") << R"({"name": "u", "targets": ["bare-metal"],
      "disk": {"size": "32m"}, "order_seed": 1,
      "jobs": [{"name": "r", "pattern": "random", "bs": "4k", "ioengine": "psync",
                "runtime": 1, "seed": [1, 2]}]})";
  const testing::CliRun run = testing::RunCli(
      {"run", dir + "/s.json", "--out", dir + "/out", "--work-dir", dir, "--until-conclusive",
       "--by", "job.seed", "--budget", "40"},
      dir + "/run.log", [&](ChildProcess& cli) {
        ASSERT_TRUE(testing::WaitForLogLine(dir + "/run.log",
                                            "until conclusive: look after round 5 of 40"));
        kill(cli.Pid(), SIGINT);
      });
  EXPECT_EQ(run.exit, "exited with status 130") << run.log;
  const auto seq = Manifest(dir + "/out")["sequential"];
  EXPECT_EQ(seq["stopped"].get<std::string>().rfind("interrupted in round ", 0), 0u)
      << seq.dump(2);
  EXPECT_FALSE(seq["looks"].empty());
  EXPECT_EQ(seq["looks"][0], 5);
  const testing::CliRun c = testing::RunCli({"compare", dir + "/out"}, dir + "/compare.log");
  EXPECT_TRUE(c.exit == "exited with status 0" || c.exit == "exited with status 4") << c.log;
  EXPECT_NE(c.log.find("judged sequentially"), std::string::npos) << c.log;
  EXPECT_NE(c.log.find("of the 40 planned"), std::string::npos) << c.log;
  fs::remove_all(dir);
}

// Guests: two null-co machines 10x apart, booted once per round; round 5's look decides
// everything and no machine of a later round boots.
TEST(UntilConclusiveTest, GuestRoundsAfterTheDecidingLookAreNeverBooted) {
  std::string why;
  if (testing::SharedGuestImage(&why).kernel_path.empty()) GTEST_SKIP() << why;
  const std::string dir = testing::ScratchDir("until-guest");
  std::ofstream(dir + "/s.json") << R"({"name": "u", "targets": ["virtio-blk"],
      "order_seed": 2, "machine": {"memory": "256m"},
      "disk": {"size": "16m", "driver": "null-co", "null_latency": ["2ms", "20ms"]},
      "jobs": [{"name": "r", "pattern": "random", "ioengine": "psync", "runtime": 1}]})";
  const testing::CliRun run = testing::RunCli(
      {"run", dir + "/s.json", "--out", dir + "/out", "--work-dir", dir, "--image-cache",
       testing::ImageCacheDir(), "--until-conclusive", "--by", "disk.null_latency", "--budget",
       "8"},
      dir + "/run.log");
  ASSERT_EQ(run.exit, "exited with status 0") << run.log;
  const auto manifest = Manifest(dir + "/out");
  EXPECT_EQ(manifest["sequential"]["stopped"], "conclusive at round 5")
      << manifest["sequential"].dump(2) << run.log;
  EXPECT_EQ(manifest["machines"].size(), 10u);  // 2 machines x 5 rounds, none of 6..8
  EXPECT_EQ(LoadResults(dir + "/out").size(), 10u);
  EXPECT_TRUE(testing::QemuPidsMentioning(dir).empty());
  fs::remove_all(dir);
}

}  // namespace
}  // namespace storbed
