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
namespace until_conclusive_test {  // named, not anonymous: a unity build joins files

namespace fs = std::filesystem;

// The round a conclusive run stopped at, from its manifest's "stopped"; 0 when it did not
// stop conclusively.
size_t ConclusiveRound(const nlohmann::json& seq) {
  const std::string stopped = seq.value("stopped", "");
  const std::string prefix = "conclusive at round ";
  return stopped.rfind(prefix, 0) == 0 ? std::stoul(stopped.substr(prefix.size())) : 0;
}

// The looks a run took: every round from the first look to `last`.
nlohmann::json LooksThrough(size_t last) {
  nlohmann::json looks = nlohmann::json::array();
  for (size_t r = 5; r <= last; ++r) looks.push_back(r);
  return looks;
}

// 4k against 1m sequential reads: every primary metric moves far beyond the band, so a look
// well before the budget (round 5 on a quiet host, a few rounds later under load) decides all
// three, and no round after it runs.
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
  const auto seq = testing::ManifestOf(dir + "/out")["sequential"];
  const size_t stop = ConclusiveRound(seq);
  ASSERT_GE(stop, 5u) << seq.dump(2);
  ASSERT_LT(stop, 12u) << seq.dump(2);
  EXPECT_NE(run.log.find("until conclusive: look after round " + std::to_string(stop) +
                         " of 12: 0 of 3 primary tests open"),
            std::string::npos)
      << run.log;
  EXPECT_EQ(seq["looks"], LooksThrough(stop));
  EXPECT_EQ(seq["max_rounds"], 12);
  EXPECT_EQ(seq["by"], "job.bs");
  EXPECT_EQ(LoadResults(dir + "/out").size(), 2 * stop);  // both levels, nothing after
  // The run says how much of its time measured: IO phases of about 1 s each.
  const auto efficiency = testing::ManifestOf(dir + "/out")["efficiency"];
  EXPECT_GT(efficiency["io_phase_s"].get<double>(), 1.8 * double(stop)) << efficiency.dump();
  EXPECT_GT(efficiency["wall_s"].get<double>(), efficiency["io_phase_s"].get<double>());
  EXPECT_NE(run.log.find("efficiency: "), std::string::npos) << run.log;
  // compare finds the field in the manifest and judges with the looks' rule.
  const testing::CliRun c = testing::RunCli({"compare", dir + "/out"}, dir + "/compare.log");
  EXPECT_EQ(c.exit, "exited with status 4") << c.log;  // 1m's IOPS are lower: "worse"
  EXPECT_NE(c.log.find("judged sequentially (storbed run --until-conclusive)"),
            std::string::npos)
      << c.log;
  EXPECT_NE(c.log.find("crossed the boundary at round "), std::string::npos) << c.log;
  fs::remove_all(dir);
}

// Two seeds of one random read: nothing changes, nothing is decided at round 5; Ctrl-C
// after that look leaves a directory whose manifest says so, and compare reads it with the
// correction for the looks taken, at the run's alpha and noise band unless told others.
TEST(UntilConclusiveTest, CtrlCLeavesADirectoryCompareJudgesWithTheLooksTaken) {
  const std::string dir = testing::ScratchDir("until-ctrl-c");
  std::ofstream(dir + "/s.json") << R"({"name": "u", "targets": ["bare-metal"],
      "disk": {"size": "32m"}, "order_seed": 1,
      "jobs": [{"name": "r", "pattern": "random", "bs": "4k", "ioengine": "psync",
                "runtime": 1, "seed": [1, 2]}]})";
  const testing::CliRun run = testing::RunCli(
      {"run", dir + "/s.json", "--out", dir + "/out", "--work-dir", dir, "--until-conclusive",
       "--by", "job.seed", "--budget", "40", "--alpha", "0.05", "--noise", "5"},
      dir + "/run.log", [&](ChildProcess& cli) {
        ASSERT_TRUE(testing::WaitForLogLine(dir + "/run.log",
                                            "until conclusive: look after round 5 of 40"));
        kill(cli.Pid(), SIGINT);
      });
  EXPECT_EQ(run.exit, "exited with status 130") << run.log;
  const auto seq = testing::ManifestOf(dir + "/out")["sequential"];
  EXPECT_EQ(seq["stopped"].get<std::string>().rfind("interrupted in round ", 0), 0u)
      << seq.dump(2);
  EXPECT_FALSE(seq["looks"].empty());
  EXPECT_EQ(seq["looks"][0], 5);
  const testing::CliRun c = testing::RunCli({"compare", dir + "/out"}, dir + "/compare.log");
  EXPECT_TRUE(c.exit == "exited with status 0" || c.exit == "exited with status 4") << c.log;
  EXPECT_NE(c.log.find("judged sequentially"), std::string::npos) << c.log;
  EXPECT_NE(c.log.find("of the 40 planned"), std::string::npos) << c.log;
  EXPECT_EQ(seq["alpha"], 0.05);
  EXPECT_EQ(seq["noise"], 0.05);
  EXPECT_NE(c.log.find("family-wise alpha of 0.05"), std::string::npos) << c.log;
  EXPECT_NE(c.log.find("inside the band (+-5%)"), std::string::npos) << c.log;
  const testing::CliRun told =
      testing::RunCli({"compare", dir + "/out", "--noise", "2"}, dir + "/compare2.log");
  EXPECT_NE(told.log.find("inside the band (+-2%)"), std::string::npos) << told.log;
  EXPECT_NE(told.log.find("family-wise alpha of 0.05"), std::string::npos) << told.log;
  fs::remove_all(dir);
}

// Guests: two null-co machines 10x apart, booted once per round; a look before the budget
// (round 5 on a quiet host) decides everything and no machine of a later round boots.
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
       "12"},
      dir + "/run.log");
  ASSERT_EQ(run.exit, "exited with status 0") << run.log;
  const auto manifest = testing::ManifestOf(dir + "/out");
  const size_t stop = ConclusiveRound(manifest["sequential"]);
  ASSERT_GE(stop, 5u) << manifest["sequential"].dump(2) << run.log;
  ASSERT_LT(stop, 12u) << manifest["sequential"].dump(2) << run.log;
  EXPECT_EQ(manifest["machines"].size(), 2 * stop);  // 2 machines a round, none after `stop`
  EXPECT_EQ(LoadResults(dir + "/out").size(), 2 * stop);
  EXPECT_TRUE(testing::QemuPidsMentioning(dir).empty());
  fs::remove_all(dir);
}

}  // namespace until_conclusive_test
}  // namespace storbed
