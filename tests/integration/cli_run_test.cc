// `storbed run` end to end: a small suite on both buses and bare metal, then the
// same CLI with QEMU SIGKILLed in the middle of a job.
#include <gtest/gtest.h>
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "backend/child_process.h"
#include "results/results_dir.h"
#include "test_env.h"

namespace storbed {
namespace cli_run_test {  // named, not anonymous: a unity build joins files

namespace fs = std::filesystem;

using testing::CliRun;
using testing::RunCli;
using testing::Slurp;

std::string WriteScenario(const std::string& dir, const std::string& text) {
  const std::string path = dir + "/scenario.json";
  std::ofstream(path) << text;
  return path;
}

TEST(CliRunTest, SmallSuiteGivesOneGoodRecordPerJobAndTarget) {
  std::string why;
  if (testing::SharedGuestImage(&why).kernel_path.empty()) GTEST_SKIP() << why;
  const std::string dir = testing::ScratchDir("cli-run");
  const std::string scenario = WriteScenario(dir, R"({
    "name": "itest", "targets": ["virtio-blk", "nvme", "bare-metal"],
    "machine": {"memory": "512m", "accel": "auto"}, "disk": {"size": "16m"},
    "jobs": [
      {"name": "seq", "pattern": "sequential", "bs": "64k", "io_size": "2m"},
      {"name": "rand", "pattern": "random", "bs": "4k", "ioengine": "io_uring", "iodepth": 4,
       "io_size": "1m"},
      {"name": "gappy", "pattern": "gappy", "bs": "4k", "gappy_skip": 3, "io_size": "1m"}]})");
  const CliRun run = RunCli({"run", scenario, "--out", dir + "/out", "--image-cache",
                             testing::ImageCacheDir()},
                            dir + "/cli.log");
  ASSERT_EQ(run.exit, "exited with status 0") << run.log;

  const auto records = LoadResults(dir + "/out");
  ASSERT_EQ(records.size(), 9u);
  for (const auto& r : records) {
    SCOPED_TRACE(r.run_id);
    EXPECT_EQ(r.status, RunStatus::Ok) << r.error;
    ASSERT_TRUE(r.result);
    EXPECT_GT(r.result->mib_s, 0);
    EXPECT_TRUE(r.result->block.available) << r.result->block.reason;
    EXPECT_EQ(r.accel, r.target == "bare-metal" ? "host" : "tcg");
    // The host CPU sampler's shares over the IO phase, guests and bare metal alike.
    EXPECT_TRUE(r.host.contains("host_cpu") && r.host["host_cpu"].contains("all"))
        << r.host.dump();
  }
  const auto manifest = nlohmann::json::parse(Slurp(dir + "/out/manifest.json"));
  EXPECT_EQ(manifest["accel"]["accel"], "tcg");
  EXPECT_FALSE(manifest["accel"]["reason"].get<std::string>().empty());
  EXPECT_FALSE(manifest["machines"]["nvme"]["argv"].empty());
  EXPECT_FALSE(manifest["machines"]["virtio-blk"]["guest_kernel"].get<std::string>().empty());
  EXPECT_EQ(manifest["scenario"]["jobs"].size(), 3u);
  EXPECT_TRUE(fs::file_size(dir + "/out/machine-nvme/console.log") > 0);
  // Each guest's boot in parts (docs/boot.md): none negative, together the host's time.
  for (const char* label : {"virtio-blk", "nvme"}) {
    SCOPED_TRACE(label);
    const auto& machine = manifest["machines"][label];
    const auto& boot = machine["boot"];
    const double hello_s = boot.value("hello_s", -1.0);
    EXPECT_GT(hello_s, 0) << boot.dump();
    EXPECT_LE(hello_s, machine["boot_s"].get<double>()) << "QEMU start comes after storbed's start";
    double sum = 0;
    for (const char* part :
         {"before_kernel_s", "kernel_to_init_s", "modules_s", "devices_s", "agent_s"}) {
      ASSERT_TRUE(boot.contains(part)) << part << " missing in " << boot.dump();
      EXPECT_GE(boot[part].get<double>(), 0) << part << " in " << boot.dump();
      EXPECT_LE(boot[part].get<double>(), hello_s) << part << " in " << boot.dump();
      sum += boot[part].get<double>();
    }
    EXPECT_NEAR(sum, hello_s, 1e-6) << boot.dump();
  }

  // fio.json beside them (docs/fio-json.md): a fio job per run with its record's IOPS, and
  // the guest's own device in disk_util.
  const auto fio = nlohmann::json::parse(Slurp(dir + "/out/fio.json"));
  ASSERT_EQ(fio["jobs"].size(), records.size());
  ASSERT_EQ(fio["disk_util"].size(), records.size());
  for (size_t i = 0; i < fio["jobs"].size(); ++i) {
    const auto& job = fio["jobs"][i];
    const auto r = std::find_if(records.begin(), records.end(), [&](const RunRecord& x) {
      return x.run_id == job["storbed"]["run_id"];
    });
    ASSERT_NE(r, records.end()) << job["jobname"];
    EXPECT_EQ(job["read"]["iops"], r->result->iops) << r->run_id;
    EXPECT_EQ(job["read"]["total_ios"], r->result->ios) << r->run_id;
    EXPECT_EQ(fio["disk_util"][i]["name"], r->result->block.device) << r->run_id;
    if (r->job.pattern == Pattern::Gappy) {
      EXPECT_EQ(job["job options"]["rw"], "read:12k");
    }
  }

  // `storbed report` rebuilds the table and the ladders from the stored results alone.
  const CliRun report = RunCli({"report", dir + "/out"}, dir + "/report.log");
  EXPECT_EQ(report.exit, "exited with status 0") << report.log;
  for (const auto& r : records) EXPECT_NE(report.log.find(r.run_id), std::string::npos);
  EXPECT_NE(report.log.find("\nreading: "), std::string::npos) << report.log;  // each ladder's headline
  EXPECT_NE(report.log.find("timelines:"), std::string::npos) << report.log;
  // report.txt is the text report as the run printed it; `--format text` renders it again.
  const CliRun text = RunCli({"report", dir + "/out", "--format", "text"}, dir + "/text.log");
  EXPECT_EQ(text.exit, "exited with status 0") << text.log;
  EXPECT_EQ(text.log, Slurp(dir + "/out/report.txt"));
  const CliRun bad = RunCli({"report", dir + "/out", "--format", "pdf"}, dir + "/bad.log");
  EXPECT_EQ(bad.exit, "exited with status 2");
  EXPECT_NE(bad.log.find("unknown report format 'pdf' (known: text, timelines, html, markdown, "
                         "fio-json)"),
            std::string::npos) << bad.log;
  EXPECT_TRUE(testing::QemuPidsMentioning(dir).empty());
}

TEST(CliRunTest, BadScenarioExitsTwoNamingFileAndField) {
  const std::string dir = testing::ScratchDir("cli-bad");
  const std::string scenario =
      WriteScenario(dir, R"({"name": "x", "jobs": [{"name": "a", "iodepth": 0}]})");
  const CliRun run = RunCli({"run", scenario, "--out", dir + "/out"}, dir + "/cli.log");
  EXPECT_EQ(run.exit, "exited with status 2");
  EXPECT_NE(run.log.find(scenario + ": jobs[0].iodepth: value 0 is out of range"),
            std::string::npos)
      << run.log;
}

// Waits until the CLI's log shows `line`, then a little longer so the job is under way.
void WaitUntilUnderWay(const std::string& log, const std::string& line) {
  testing::WaitForLogLine(log, line);
  std::this_thread::sleep_for(std::chrono::seconds(2));
}

const char* kTwoJobScenario = R"({
    "name": "NAME", "targets": ["virtio-blk"], "machine": {"memory": "512m"},
    "disk": {"size": "16m"},
    "jobs": [{"name": "first", "bs": "64k", "io_size": "1m"},
             {"name": "long", "pattern": "random", "bs": "4k", "runtime": 120}]})";

std::string TwoJobScenario(const std::string& dir, const std::string& name) {
  std::string text = kTwoJobScenario;
  text.replace(text.find("NAME"), 4, name);
  return WriteScenario(dir, text);
}

TEST(CliRunTest, QemuKilledDuringAJobFailsThatRunAndKeepsTheRest) {
  std::string why;
  if (testing::SharedGuestImage(&why).kernel_path.empty()) GTEST_SKIP() << why;
  const std::string dir = testing::ScratchDir("cli-kill");
  const std::string scenario = TwoJobScenario(dir, "kill");
  const std::string out = dir + "/out";
  const CliRun run = RunCli(
      {"run", scenario, "--out", out, "--image-cache",
       testing::ImageCacheDir()},
      dir + "/cli.log", [&](ChildProcess&) {
        WaitUntilUnderWay(dir + "/cli.log", "002-virtio-blk-long on");
        const auto pids = testing::QemuPidsMentioning(out);
        ASSERT_EQ(pids.size(), 1u);
        kill(pids[0], SIGKILL);
      });
  EXPECT_EQ(run.exit, "exited with status 3") << run.log;
  EXPECT_NE(run.log.find("storbed: run 002-virtio-blk-long: "), std::string::npos) << run.log;
  const auto records = LoadResults(out);
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].status, RunStatus::Ok);
  EXPECT_EQ(records[1].status, RunStatus::Failed);
  EXPECT_NE(records[1].error.find("signal 9"), std::string::npos) << records[1].error;
  EXPECT_GT(fs::file_size(out + "/" + records[1].console_log), 0u);
  EXPECT_TRUE(testing::QemuPidsMentioning(dir).empty());
}

}  // namespace cli_run_test
}  // namespace storbed

namespace storbed {
namespace cli_run_test {  // named, not anonymous: a unity build joins files

TEST(CliRunTest, CtrlCDuringAJobKeepsFinishedRunsAndLeavesNothingRunning) {
  std::string why;
  if (testing::SharedGuestImage(&why).kernel_path.empty()) GTEST_SKIP() << why;
  const std::string dir = testing::ScratchDir("cli-int");
  const std::string out = dir + "/out";
  const std::string work = dir + "/work";
  fs::create_directories(work);
  const CliRun run = RunCli({"run", TwoJobScenario(dir, "int"), "--out", out, "--work-dir", work,
                             "--image-cache",
                             testing::ImageCacheDir()},
                            dir + "/cli.log", [&](ChildProcess& cli) {
                              WaitUntilUnderWay(dir + "/cli.log", "002-virtio-blk-long on");
                              kill(cli.Pid(), SIGINT);
                            });
  EXPECT_EQ(run.exit, "exited with status 130") << run.log;
  const auto records = LoadResults(out);
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].status, RunStatus::Ok);
  EXPECT_EQ(records[1].status, RunStatus::Failed);
  EXPECT_NE(records[1].error.find("interrupted"), std::string::npos) << records[1].error;
  EXPECT_TRUE(nlohmann::json::parse(Slurp(out + "/manifest.json"))["interrupted"].get<bool>());
  EXPECT_GT(fs::file_size(out + "/" + records[1].console_log), 0u);
  EXPECT_TRUE(testing::QemuPidsMentioning(dir).empty());
  // The backing file's temporary directory is gone.
  EXPECT_TRUE(fs::is_empty(work));
}

}  // namespace cli_run_test
}  // namespace storbed
