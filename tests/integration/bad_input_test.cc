// Issue 15 through the real binaries, without a VM: bad input gets exit 2 and a message
// naming the file, field and reason before anything is created; a second run into one
// out dir refuses; a rerun moves the earlier results aside; Ctrl-C marks the runs not done;
// the standalone agent leaves the host's queue settings as it found them.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "backend/child_process.h"
#include "execute/backing.h"
#include "execute/host_mount.h"
#include "execute/loop_device.h"
#include "owner_marker.h"
#include "results/results_dir.h"
#include "test_env.h"

namespace storbed {
namespace bad_input_test {  // named, not anonymous: a unity build joins files

namespace fs = std::filesystem;

using testing::CliRun;
using testing::RunCli;
using testing::Slurp;

using testing::WriteFile;

// `storbed ARGS` must exit 2 with `message` (a whole line).
void ExpectBadInput(const std::vector<std::string>& args, const std::string& message,
                    const std::string& dir) {
  const CliRun run = RunCli(args, dir + "/cli.log");
  EXPECT_EQ(run.exit, "exited with status 2") << run.log;
  EXPECT_NE(run.log.find("storbed: " + message + "\n"), std::string::npos) << run.log;
}

class BadInputTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::ScratchDir(std::string("bad-input-") +
                               ::testing::UnitTest::GetInstance()->current_test_info()->name());
    work_ = dir_ + "/work";
    fs::create_directories(work_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  // Dry run and real run of `scenario_text` both refuse with `message`; no out dir made.
  void ExpectRefusedBoth(const std::string& scenario_text, const std::string& message) {
    const std::string scenario = WriteFile(dir_ + "/s.json", scenario_text);
    const std::string full = scenario + ": " + message;
    ExpectBadInput({"run", scenario, "--dry-run", "--work-dir", work_}, full, dir_);
    ExpectBadInput({"run", scenario, "--out", dir_ + "/out", "--work-dir", work_}, full, dir_);
    EXPECT_FALSE(fs::exists(dir_ + "/out"));
    EXPECT_TRUE(fs::is_empty(work_));
  }
  std::string dir_, work_;
};

TEST_F(BadInputTest, AScenarioNameWithASlashIsRefusedByDryRunAndRun) {
  ExpectRefusedBoth(R"({"name": "a/b", "targets": ["bare-metal"], "jobs": [{"name": "j"}]})",
                    "name: \"a/b\" may hold only letters, digits, '.', '_' and '-', beginning "
                    "with a letter or digit (it names files, run ids and guests)");
}

TEST_F(BadInputTest, DevZeroAsBackingIsRefusedByDryRunAndRun) {
  ExpectRefusedBoth(R"({"name": "z", "targets": ["bare-metal"], "disk": {"backing": "/dev/zero"},
                        "jobs": [{"name": "j"}]})",
                    "disk.backing: /dev/zero is a character device; a backing must be a regular "
                    "file or a block device");
}

TEST_F(BadInputTest, ProcSelfMemAsBackingIsRefusedByDryRunAndRun) {
  ExpectRefusedBoth(R"({"name": "m", "targets": ["bare-metal"],
                        "disk": {"backing": "/proc/self/mem"}, "jobs": [{"name": "j"}]})",
                    "disk.backing: /proc/self/mem is on /proc or /sys, not storage");
}

TEST_F(BadInputTest, NumjobsSplitThatCannotSplitTheRegionIsRefusedByDryRunAndRun) {
  ExpectRefusedBoth(R"({"name": "n", "targets": ["bare-metal"], "disk": {"size": "1m"},
                        "jobs": [{"name": "j", "bs": "64k", "numjobs": 32, "numjobs_split": true}]})",
                    "jobs[0].numjobs_split: the region of 1048576 bytes cannot be split into "
                    "numjobs=32 slices of at least bs=65536 bytes");
}

TEST_F(BadInputTest, A16TerabyteDiskIsRefusedBeforeAnyBackingIsMade) {
  const std::string scenario =
      WriteFile(dir_ + "/s.json", R"({"name": "big", "targets": ["bare-metal"],
      "disk": {"size": "16t"}, "jobs": [{"name": "j"}]})");
  const CliRun run = RunCli({"run", scenario, "--out", dir_ + "/out", "--work-dir", work_},
                            dir_ + "/cli.log");
  EXPECT_EQ(run.exit, "exited with status 2") << run.log;
  EXPECT_NE(run.log.find("storbed: " + scenario + ": disk.size: the backings need 16t in " + work_ +
                         " (plus a margin of 512m), which has "),
            std::string::npos)
      << run.log;
  EXPECT_TRUE(fs::is_empty(work_));
  EXPECT_FALSE(fs::exists(dir_ + "/out"));
}

TEST_F(BadInputTest, AFifoAsTheScenarioIsRefusedAtOnce) {
  const std::string fifo = dir_ + "/s.json";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  ExpectBadInput({"run", fifo, "--dry-run"},
                 fifo + ": the scenario file is a FIFO, not a regular file", dir_);
}

TEST_F(BadInputTest, AMatrixAboveTheCapIsRefusedUnlessMaxRunsRaisesIt) {
  const std::string scenario = WriteFile(dir_ + "/s.json", R"({"name": "wide", "repeats": 1000,
      "targets": ["bare-metal"], "disk": {"driver": "file"},
      "jobs": [{"name": "j", "bs": ["4k", "8k", "16k", "32k", "64k", "128k", "256k", "512k",
                                   "1m", "2m", "4m"]}]})");
  ExpectBadInput({"run", scenario, "--dry-run", "--work-dir", work_},
                 scenario + ": (matrix): expands to 11000 runs, more than the limit of 10000; "
                            "narrow the lists, or raise the limit with --max-runs",
                 dir_);
  const CliRun raised = RunCli({"run", scenario, "--dry-run", "--work-dir", work_, "--max-runs",
                                "11000"},
                               dir_ + "/raised.log");
  EXPECT_EQ(raised.exit, "exited with status 0") << raised.log;
}

TEST_F(BadInputTest, ImageBuildRefusesAnAgentOrKernelThatIsNotOne) {
  ExpectBadInput({"image", "build", "--agent", "/etc/passwd", "--cache", dir_ + "/cache"},
                 "image build: --agent /etc/passwd: is not an ELF executable", dir_);
  ExpectBadInput({"image", "build", "--agent", testing::AgentPath(), "--kernel", "/etc/passwd",
                  "--modules", "/lib/modules", "--cache", dir_ + "/cache"},
                 "image build: --kernel /etc/passwd: is not a bzImage (no x86 boot header: "
                 "0xAA55 at 0x1FE and \"HdrS\" at 0x202)",
                 dir_);
  EXPECT_FALSE(fs::exists(dir_ + "/cache"));
}

// Regression: `storbed report` read timelines_file wherever it pointed.
TEST_F(BadInputTest, ReportRefusesAResultsFileThatPointsOutsideItsDir) {
  const std::string out = dir_ + "/out";
  fs::create_directories(out);
  RunRecord record;
  record.run_id = "001-a";
  record.target = "nvme";
  record.accel = "tcg";
  nlohmann::json doc = record;
  doc["timelines_file"] = "../../../../etc/passwd";
  WriteFile(out + "/results.json", nlohmann::json::array({doc}).dump());
  ExpectBadInput({"report", out},
                 out + "/results.json: record 0: timelines_file (run_id \"001-a\"): "
                       "\"../../../../etc/passwd\" leaves the results directory",
                 dir_);
  doc = record;
  doc["accel"] = 3;
  WriteFile(out + "/results.json", nlohmann::json::array({doc}).dump());
  ExpectBadInput({"report", out},
                 out + "/results.json: record 0: accel (run_id \"001-a\"): type must be string, "
                       "but is number",
                 dir_);
  ExpectBadInput({"report", dir_ + "/none"},
                 dir_ + "/none/results.json: the results file cannot be opened: No such file or "
                        "directory",
                 dir_);
}

const char* kBareMetalThreeJobs = R"({"name": "bm", "targets": ["bare-metal"],
    "disk": {"size": "16m"},
    "jobs": [{"name": "first", "bs": "64k", "io_size": "1m"},
             {"name": "long", "pattern": "random", "bs": "4k", "runtime": 60},
             {"name": "never", "bs": "64k", "io_size": "1m"}]})";

// Regression: two runs into one --out both exited 0; after Ctrl-C the runs not done were
// missing and no report.txt was written.
TEST_F(BadInputTest, ASecondRunIntoABusyOutDirRefusesAndCtrlCMarksThePendingRuns) {
  const std::string scenario = WriteFile(dir_ + "/s.json", kBareMetalThreeJobs);
  const std::string out = dir_ + "/out";
  CliRun second;
  int first_pid = 0;
  const CliRun first = RunCli(
      {"run", scenario, "--out", out, "--work-dir", work_}, dir_ + "/first.log",
      [&](ChildProcess& cli) {
        first_pid = cli.Pid();
        ASSERT_TRUE(testing::WaitForLogLine(dir_ + "/first.log", "002-bare-metal-long on"));
        second = RunCli({"run", scenario, "--out", out, "--work-dir", work_},
                        dir_ + "/second.log");
        kill(cli.Pid(), SIGINT);
      });
  EXPECT_EQ(second.exit, "exited with status 2") << second.log;
  EXPECT_NE(second.log.find("storbed: --out " + out + ": another storbed run (pid " +
                            std::to_string(first_pid) +
                            ") is writing there; wait for it to end or give another --out\n"),
            std::string::npos)
      << second.log;
  EXPECT_EQ(first.exit, "exited with status 130") << first.log;
  EXPECT_NE(first.log.find("storbed: interrupted; finished runs are in " + out +
                           "/results.json, the rest are marked skipped (interrupted); report: " +
                           out + "/report.txt"),
            std::string::npos)
      << first.log;
  const auto records = LoadResults(out);
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(records[0].status, RunStatus::Ok);
  EXPECT_EQ(records[1].status, RunStatus::Failed);
  EXPECT_EQ(records[1].error, "interrupted (SIGINT)");
  EXPECT_EQ(records[2].run_id, "003-bare-metal-never");
  EXPECT_EQ(records[2].status, RunStatus::Skipped);
  EXPECT_EQ(records[2].error, "interrupted before it ran");
  EXPECT_TRUE(fs::exists(out + "/report.txt"));
  for (const auto& e : fs::recursive_directory_iterator(out))
    EXPECT_EQ(e.path().string().find(".tmp"), std::string::npos) << e.path();
  EXPECT_TRUE(fs::is_empty(work_));
}

// Regression: a rerun into an existing out dir overwrote the earlier results.
TEST_F(BadInputTest, ARerunMovesTheEarlierResultsAsideAndSaysSo) {
  const std::string scenario =
      WriteFile(dir_ + "/s.json", R"({"name": "re", "targets": ["bare-metal"],
      "disk": {"size": "8m"}, "jobs": [{"name": "j", "bs": "64k", "io_size": "1m"}]})");
  const std::string out = dir_ + "/out";
  const CliRun one = RunCli({"run", scenario, "--out", out, "--work-dir", work_}, dir_ + "/1.log");
  ASSERT_EQ(one.exit, "exited with status 0") << one.log;
  const std::string first_manifest = Slurp(out + "/manifest.json");
  const CliRun two = RunCli({"run", scenario, "--out", out, "--work-dir", work_}, dir_ + "/2.log");
  ASSERT_EQ(two.exit, "exited with status 0") << two.log;
  EXPECT_NE(two.log.find("storbed: note: " + out + " held an earlier run's results; moved them to " +
                         out + ".earlier-1\n"),
            std::string::npos)
      << two.log;
  EXPECT_EQ(Slurp(out + ".earlier-1/manifest.json"), first_manifest);
  EXPECT_EQ(LoadResults(out + ".earlier-1").size(), 1u);
  EXPECT_EQ(LoadResults(out).size(), 1u);
}

// Regression: the standalone agent on a file wrote the host disk's read_ahead_kb and
// never restored it.
TEST_F(BadInputTest, TheStandaloneAgentLeavesTheHostsQueueSettingsAsFound) {
  const Backing backing = CreateFilledBacking(dir_ + "/b.raw", 8 << 20);
  LoopDevice loop = LoopDevice::Attach(backing.path, /*direct_io=*/true);
  const std::string name = fs::path(loop.path()).filename();
  const std::string ra = "/sys/block/" + name + "/queue/read_ahead_kb";
  const std::string before = Slurp(ra);
  const std::string wanted = before == "512\n" ? "1024" : "512";
  // The host disk under the backing file: its queue is the one a file target would touch.
  struct stat st {};
  ASSERT_EQ(stat(backing.path.c_str(), &st), 0);
  fs::path host_dev = fs::canonical("/sys/dev/block/" + std::to_string(major(st.st_dev)) + ":" +
                                    std::to_string(minor(st.st_dev)));
  if (fs::exists(host_dev / "partition")) host_dev = host_dev.parent_path();
  const std::string host_ra = (host_dev / "queue/read_ahead_kb").string();
  const std::string host_before = Slurp(host_ra);
  for (const std::string& target : {loop.path(), backing.path}) {
    SCOPED_TRACE(target);
    JobSpec spec;
    spec.name = "t";
    spec.target = target;
    spec.bs = 65536;
    spec.io_limit = 1 << 20;
    spec.tunables.read_ahead_kb = std::stoll(wanted);
    const std::string job = WriteFile(dir_ + "/job.json", nlohmann::json(spec).dump());
    ChildProcess agent = ChildProcess::Start({testing::AgentPath(), "--standalone", job},
                                             dir_ + "/agent.log");
    ASSERT_TRUE(agent.WaitFor(std::chrono::seconds(60)));
    EXPECT_EQ(agent.ExitDescription(), "exited with status 0") << Slurp(dir_ + "/agent.log");
    const std::string log = Slurp(dir_ + "/agent.log");
    const auto result = nlohmann::json::parse(log.substr(0, log.find('\n')));
    if (target == loop.path()) {
      // Written for the job (the result shows it), then put back.
      EXPECT_EQ(result["tunables_applied"]["read_ahead_kb"], std::stoll(wanted)) << log;
    } else {
      EXPECT_NE(log.find("block tunables not applied: the target " + backing.path +
                         " is a file"),
                std::string::npos)
          << log;
    }
    EXPECT_EQ(Slurp(ra), before);
    EXPECT_EQ(Slurp(host_ra), host_before);
  }
  const std::string fifo = dir_ + "/target.fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  JobSpec spec;
  spec.name = "f";
  spec.target = fifo;
  const std::string job = WriteFile(dir_ + "/job.json", nlohmann::json(spec).dump());
  ChildProcess agent = ChildProcess::Start({testing::AgentPath(), "--standalone", job},
                                           dir_ + "/agent.log");
  ASSERT_TRUE(agent.WaitFor(std::chrono::seconds(10)));
  EXPECT_EQ(agent.ExitDescription(), "exited with status 2");
  EXPECT_NE(Slurp(dir_ + "/agent.log")
                .find("storbed-agent: job 'f' on " + fifo + ": target: " + fifo +
                      " is a FIFO; a target must be a block device or a regular file"),
            std::string::npos)
      << Slurp(dir_ + "/agent.log");
}

// Regression: disk.backing /dev/vda with allow_writes was accepted without a look at
// whether the host was using the device.
TEST_F(BadInputTest, AllowWritesOnAMountedDeviceIsRefused) {
  const Backing backing = CreateFilledBacking(dir_ + "/fs.raw", 16 << 20);
  LoopDevice loop = LoopDevice::Attach(backing.path, /*direct_io=*/false);
  ChildProcess mkfs = ChildProcess::Start({"mkfs.ext4", "-q", "-F", loop.path()}, dir_ + "/mkfs.log");
  ASSERT_TRUE(mkfs.WaitFor(std::chrono::seconds(60)));
  ASSERT_EQ(mkfs.ExitDescription(), "exited with status 0") << Slurp(dir_ + "/mkfs.log");
  const std::string mnt = dir_ + "/mnt";
  fs::create_directories(mnt);
  {
    HostMount mounted = HostMount::Mount(loop.path(), mnt, "ext4");
    ExpectRefusedBoth(R"({"name": "w", "targets": ["bare-metal"],
                          "disk": {"backing": ")" + loop.path() + R"(", "allow_writes": true},
                          "jobs": [{"name": "j", "rw": "write", "io_size": "1m"}]})",
                      "disk.allow_writes: " + loop.path() + " is mounted at " + mnt +
                          "; storbed does not write to a device the host is using");
  }
}

}  // namespace bad_input_test
}  // namespace storbed

namespace storbed {
namespace bad_input_test {  // named, not anonymous: a unity build joins files

// Output of `argv`, which must exit 0.
std::string Output(const std::vector<std::string>& argv, const std::string& log) {
  ChildProcess p = ChildProcess::Start(argv, log);
  EXPECT_TRUE(p.WaitFor(std::chrono::seconds(60)));
  EXPECT_EQ(p.ExitDescription(), "exited with status 0") << Slurp(log);
  std::string out = Slurp(log);
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

// Regression: after a SIGKILL during a bare-metal ext4 run, cleanup printed "removed loop
// device" while the mounted device stayed attached, then deleted inside the mounted
// filesystem and failed with EBUSY.
TEST_F(BadInputTest, CleanupUnmountsADeadRunsLoopDeviceBeforeDetachingIt) {
  // What a killed filesystem run leaves: its work dir (owner gone) holding the image, a
  // loop device over it, and the filesystem mounted inside the work dir.
  const std::string stale = work_ + "/storbed-work-dead01";
  fs::create_directories(stale + "/mnt");
  ChildProcess gone = ChildProcess::Start({"true"}, dir_ + "/true.log");
  ASSERT_TRUE(gone.WaitFor(std::chrono::seconds(10)));
  OwnerMarker owner = CurrentProcessOwner();
  owner.pid = gone.Pid();
  WriteFile(stale + "/" + kOwnerFileName, FormatOwnerMarker(owner) + "\n");
  CreateFilledBacking(stale + "/backing.raw", 16 << 20);
  Output({"mkfs.ext4", "-q", "-F", stale + "/backing.raw"}, dir_ + "/mkfs.log");
  const std::string loop =
      Output({"losetup", "--find", "--show", stale + "/backing.raw"}, dir_ + "/losetup.log");
  Output({"mount", loop, stale + "/mnt"}, dir_ + "/mount.log");
  WriteFile(stale + "/mnt/testfile", "data of the dead run");

  const CliRun clean = RunCli({"cleanup", "--no-libvirt", "--work-dir", work_}, dir_ + "/clean.log");
  EXPECT_EQ(clean.exit, "exited with status 0") << clean.log;
  EXPECT_NE(clean.log.find("removed loop device " + loop), std::string::npos) << clean.log;
  const std::string name = fs::path(loop).filename();
  EXPECT_FALSE(fs::exists("/sys/block/" + name + "/loop/backing_file")) << "still attached";
  EXPECT_EQ(Slurp("/proc/self/mountinfo").find(stale + "/mnt"), std::string::npos);
  EXPECT_FALSE(fs::exists(stale));
  // Whatever happened, leave nothing mounted or attached behind.
  umount2((stale + "/mnt").c_str(), MNT_DETACH);
  ChildProcess detach = ChildProcess::Start({"losetup", "-d", loop}, dir_ + "/detach.log");
  detach.WaitFor(std::chrono::seconds(10));
}

}  // namespace bad_input_test
}  // namespace storbed
