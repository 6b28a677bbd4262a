// Issue 38 item 2 through the real static agent on real loop devices (no VM): the
// standalone agent refuses a device the host is using and a write it was not allowed,
// and puts back the queue settings it changed after SIGTERM and SIGHUP, and after a
// SIGKILL through the next agent run or `storbed cleanup`. Every device here is a loop
// device the test attached over its own file.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/swap.h>

#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>
#include <variant>

#include "backend/child_process.h"
#include "execute/backing.h"
#include "execute/host_mount.h"
#include "execute/loop_device.h"
#include "job.h"
#include "protocol.h"
#include "test_env.h"
#include "tunables_journal.h"

namespace storbed {
namespace agent_safety_test {  // named, not anonymous: a unity build joins files

namespace fs = std::filesystem;

using testing::Slurp;
using testing::WriteFile;

// How an agent run ended and what it printed (stdout and stderr).
struct AgentRun {
  std::string exit;
  std::string log;
};

class AgentSafetyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::ScratchDir(std::string("agent-safety-") +
                               ::testing::UnitTest::GetInstance()->current_test_info()->name());
    journals_ = dir_ + "/journals";
    fs::create_directories(journals_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  LoopDevice Loop(bool direct_io = true) {
    const Backing backing =
        CreateFilledBacking(dir_ + "/b" + std::to_string(loops_++) + ".raw", 16 << 20);
    return LoopDevice::Attach(backing.path, direct_io);
  }
  std::string Job(const JobSpec& spec) {
    return WriteFile(dir_ + "/job-" + spec.name + ".json", nlohmann::json(spec).dump());
  }
  std::vector<std::string> AgentArgv(const JobSpec& spec, std::vector<std::string> extra = {}) {
    std::vector<std::string> argv = {testing::AgentPath(), "--standalone", Job(spec),
                                     "--journal-dir", journals_};
    argv.insert(argv.end(), extra.begin(), extra.end());
    return argv;
  }
  AgentRun RunAgent(const JobSpec& spec, std::vector<std::string> extra = {}) {
    const std::string log = dir_ + "/agent-" + spec.name + ".log";
    ChildProcess agent = ChildProcess::Start(AgentArgv(spec, extra), log);
    EXPECT_TRUE(agent.WaitFor(std::chrono::seconds(60)));
    return {agent.ExitDescription(), Slurp(log)};
  }
  // `storbed-agent --serve-stdio` with `requests` on its stdin (sh only redirects: the
  // paths are arguments, never part of the script) and its stdout and stderr in `log`.
  ChildProcess StartServing(const std::vector<Message>& requests, const std::string& log,
                            std::vector<std::string> extra = {}) {
    std::string lines;
    for (const Message& m : requests) lines += EncodeMessage(m) + "\n";
    const std::string in = WriteFile(dir_ + "/requests-" + fs::path(log).stem().string(), lines);
    std::vector<std::string> argv = {"/bin/sh",
                                     "-c",
                                     "exec \"$@\" < \"$0\"",
                                     in,
                                     testing::AgentPath(),
                                     "--serve-stdio",
                                     "--journal-dir",
                                     journals_};
    argv.insert(argv.end(), extra.begin(), extra.end());
    return ChildProcess::Start(argv, log);
  }
  // The replies of a served session that ends, heartbeats left out.
  AgentRun Serve(const std::vector<Message>& requests, std::vector<std::string> extra = {}) {
    const std::string log = dir_ + "/serve-" + std::to_string(serves_++) + ".log";
    ChildProcess agent = StartServing(requests, log, extra);
    EXPECT_TRUE(agent.WaitFor(std::chrono::seconds(60)));
    std::string replies;
    std::istringstream lines(Slurp(log));
    for (std::string line; std::getline(lines, line);)
      if (line.find("\"heartbeat\"") == std::string::npos) replies += line + "\n";
    return {agent.ExitDescription(), replies};
  }
  std::vector<std::string> JournalDirs() {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(journals_)) out.push_back(e.path());
    return out;
  }
  std::string dir_, journals_;
  int loops_ = 0, serves_ = 0;
};

JobSpec WriteJob(const std::string& target) {
  JobSpec spec;
  spec.name = "w";
  spec.target = target;
  spec.rw = Direction::Write;
  spec.bs = 65536;
  spec.io_limit = 1 << 20;
  return spec;
}

// Regression (issue 38): a write job on a device with a mounted ext4 wrote 56 MB and
// destroyed the filesystem. Expected: exit 2, the mount point named, nothing written.
TEST_F(AgentSafetyTest, AMountedDeviceIsRefusedEvenWithAllowWrites) {
  LoopDevice loop = Loop(/*direct_io=*/false);
  ChildProcess mkfs =
      ChildProcess::Start({"mkfs.ext4", "-q", "-F", loop.path()}, dir_ + "/mkfs.log");
  ASSERT_TRUE(mkfs.WaitFor(std::chrono::seconds(60)));
  ASSERT_EQ(mkfs.ExitDescription(), "exited with status 0") << Slurp(dir_ + "/mkfs.log");
  const std::string mnt = dir_ + "/mnt";
  fs::create_directories(mnt);
  HostMount mounted = HostMount::Mount(loop.path(), mnt, "ext4");
  WriteFile(mnt + "/kept", "still here");
  const AgentRun run = RunAgent(WriteJob(loop.path()), {"--allow-writes"});
  EXPECT_EQ(run.exit, "exited with status 2") << run.log;
  EXPECT_EQ(run.log, "storbed-agent: job 'w' on " + loop.path() + ": the device is mounted at " +
                         mnt + "; storbed-agent does not touch a device the host is using\n");
  EXPECT_EQ(Slurp(mnt + "/kept"), "still here");
}

TEST_F(AgentSafetyTest, AnActiveSwapDeviceIsRefused) {
  LoopDevice loop = Loop();
  ChildProcess mkswap = ChildProcess::Start({"mkswap", loop.path()}, dir_ + "/mkswap.log");
  ASSERT_TRUE(mkswap.WaitFor(std::chrono::seconds(60)));
  ASSERT_EQ(mkswap.ExitDescription(), "exited with status 0") << Slurp(dir_ + "/mkswap.log");
  if (swapon(loop.path().c_str(), 0) != 0)
    GTEST_SKIP() << "swapon " << loop.path() << ": " << std::strerror(errno);
  JobSpec read = WriteJob(loop.path());
  read.rw = Direction::Read;
  const AgentRun run = RunAgent(read);
  swapoff(loop.path().c_str());
  EXPECT_EQ(run.exit, "exited with status 2") << run.log;
  EXPECT_NE(run.log.find(": the device is in use as swap; storbed-agent does not touch"),
            std::string::npos)
      << run.log;
}

// A free device: a write needs --allow-writes, and with it the job runs.
TEST_F(AgentSafetyTest, AWriteToABlockDeviceNeedsAllowWrites) {
  LoopDevice loop = Loop();
  const AgentRun refused = RunAgent(WriteJob(loop.path()));
  EXPECT_EQ(refused.exit, "exited with status 2") << refused.log;
  EXPECT_EQ(refused.log, "storbed-agent: job 'w' on " + loop.path() +
                             ": rw write overwrites the data on the block device; pass "
                             "--allow-writes to let the agent write to it\n");
  const AgentRun allowed = RunAgent(WriteJob(loop.path()), {"--allow-writes"});
  EXPECT_EQ(allowed.exit, "exited with status 0") << allowed.log;
}

// Issue 38: the device was checked, not held: a mount between the check and the job's end
// went through. The agent holds it exclusively for the job, so the mount fails (EBUSY)
// until the job ends.
TEST_F(AgentSafetyTest, TheDeviceIsHeldSoNothingMountsItMidJob) {
  LoopDevice loop = Loop(/*direct_io=*/false);
  ChildProcess mkfs =
      ChildProcess::Start({"mkfs.ext4", "-q", "-F", loop.path()}, dir_ + "/mkfs.log");
  ASSERT_TRUE(mkfs.WaitFor(std::chrono::seconds(60)));
  JobSpec spec = WriteJob(loop.path());
  spec.name = "long";
  spec.rw = Direction::Read;
  spec.io_limit = 0;
  spec.runtime_s = 120;
  ChildProcess agent = ChildProcess::Start(AgentArgv(spec), dir_ + "/agent-long.log");
  // Held: an exclusive open of our own is refused once the agent has it.
  bool held = false;
  for (int i = 0; i < 200 && !held; ++i) {
    const int fd = open(loop.path().c_str(), O_RDONLY | O_EXCL | O_CLOEXEC);
    held = fd < 0 && errno == EBUSY;
    if (fd >= 0) close(fd);
    if (!held) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_TRUE(held) << Slurp(dir_ + "/agent-long.log");
  const std::string mnt = dir_ + "/mnt";
  try {
    HostMount mounted = HostMount::Mount(loop.path(), mnt, "ext4");
    ADD_FAILURE() << "mounted mid-job";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("busy"), std::string::npos) << e.what();
  }
  ASSERT_EQ(kill(agent.Pid(), SIGTERM), 0);
  ASSERT_TRUE(agent.WaitFor(std::chrono::seconds(30)));
  EXPECT_NO_THROW(HostMount::Mount(loop.path(), mnt, "ext4"));  // and unmounted at once
}

// --serve-stdio on a host judges each job's target as --standalone does: a refused job is
// that request's error reply, and the session goes on.
TEST_F(AgentSafetyTest, ServeStdioJudgesEachJobsTarget) {
  LoopDevice mounted_loop = Loop(/*direct_io=*/false);
  ChildProcess mkfs =
      ChildProcess::Start({"mkfs.ext4", "-q", "-F", mounted_loop.path()}, dir_ + "/mkfs.log");
  ASSERT_TRUE(mkfs.WaitFor(std::chrono::seconds(60)));
  const std::string mnt = dir_ + "/mnt";
  fs::create_directories(mnt);
  HostMount mounted = HostMount::Mount(mounted_loop.path(), mnt, "ext4");
  WriteFile(mnt + "/kept", "still here");
  LoopDevice free_loop = Loop();
  const std::vector<Message> requests = {RunRequest{WriteJob(mounted_loop.path())},
                                         RunRequest{WriteJob(free_loop.path())}, ShutdownRequest{}};
  const AgentRun refused = Serve(requests);
  EXPECT_EQ(refused.exit, "exited with status 0") << refused.log;
  std::istringstream lines(refused.log);
  std::vector<Message> replies;
  for (std::string line; std::getline(lines, line);) replies.push_back(DecodeMessage(line));
  ASSERT_EQ(replies.size(), 3u) << refused.log;
  ASSERT_TRUE(std::holds_alternative<ErrorReply>(replies[0])) << refused.log;
  EXPECT_EQ(std::get<ErrorReply>(replies[0]).message,
            "job 'w' on " + mounted_loop.path() + ": the device is mounted at " + mnt +
                "; storbed-agent does not touch a device the host is using");
  ASSERT_TRUE(std::holds_alternative<ErrorReply>(replies[1])) << refused.log;
  EXPECT_NE(std::get<ErrorReply>(replies[1]).message.find("pass --allow-writes"),
            std::string::npos);
  EXPECT_TRUE(std::holds_alternative<ShutdownAck>(replies[2])) << refused.log;
  EXPECT_EQ(Slurp(mnt + "/kept"), "still here");
  // With --allow-writes the free device's job runs; the mounted one is still refused.
  const AgentRun allowed = Serve(requests, {"--allow-writes"});
  EXPECT_EQ(allowed.exit, "exited with status 0") << allowed.log;
  EXPECT_NE(allowed.log.find("the device is mounted at"), std::string::npos) << allowed.log;
  EXPECT_NE(allowed.log.find("\"type\":\"result\""), std::string::npos) << allowed.log;
  EXPECT_EQ(Slurp(mnt + "/kept"), "still here");
}

// A long read job that changes the loop's queue settings; the test kills it mid-job.
class TunablesAfterKillTest : public AgentSafetyTest {
 protected:
  void SetUp() override {
    AgentSafetyTest::SetUp();
    loop_.emplace(Loop());
    queue_ = "/sys/block/" + fs::path(loop_->path()).filename().string() + "/queue/";
    before_ra_ = Slurp(queue_ + "read_ahead_kb");
    before_ms_ = Slurp(queue_ + "max_sectors_kb");
  }
  void TearDown() override {
    loop_.reset();
    AgentSafetyTest::TearDown();
  }
  // Starts the job (--standalone, or the one request of --serve-stdio) and waits until the
  // agent has changed both settings.
  ChildProcess StartChangingJob(bool serving = false) {
    JobSpec spec = WriteJob(loop_->path());
    spec.name = "long";
    spec.rw = Direction::Read;
    spec.io_limit = 0;
    spec.runtime_s = 120;
    spec.tunables.read_ahead_kb = before_ra_ == "0\n" ? 8 : 0;
    spec.tunables.max_sectors_kb = 4;
    ChildProcess agent = serving ? StartServing({RunRequest{spec}}, dir_ + "/agent-long.log")
                                 : ChildProcess::Start(AgentArgv(spec), dir_ + "/agent-long.log");
    for (int i = 0; i < 200 && Slurp(queue_ + "max_sectors_kb") != "4\n"; ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    EXPECT_EQ(Slurp(queue_ + "max_sectors_kb"), "4\n") << Slurp(dir_ + "/agent-long.log");
    EXPECT_NE(Slurp(queue_ + "read_ahead_kb"), before_ra_);
    EXPECT_EQ(JournalDirs().size(), 1u);
    return agent;
  }
  void ExpectPutBack() {
    EXPECT_EQ(Slurp(queue_ + "read_ahead_kb"), before_ra_);
    EXPECT_EQ(Slurp(queue_ + "max_sectors_kb"), before_ms_);
    EXPECT_TRUE(JournalDirs().empty());
  }
  // SIGKILL: no code of the agent runs, so the settings stay changed and the journal stays.
  void KillNine() {
    ChildProcess agent = StartChangingJob();
    ASSERT_EQ(kill(agent.Pid(), SIGKILL), 0);
    ASSERT_TRUE(agent.WaitFor(std::chrono::seconds(30)));
    EXPECT_EQ(Slurp(queue_ + "max_sectors_kb"), "4\n");
    ASSERT_EQ(JournalDirs().size(), 1u);
    EXPECT_TRUE(fs::exists(JournalDirs()[0] + "/" + kTunablesJournalFile));
    EXPECT_EQ(fs::status(JournalDirs()[0]).permissions(), fs::perms::owner_all);
  }
  std::optional<LoopDevice> loop_;
  std::string queue_, before_ra_, before_ms_;
};

// Regression (issue 38): SIGTERM left read_ahead_kb / max_sectors_kb at 0 / 4 instead of
// the device's own; expected: put back, the journal gone, and the agent still dies of it.
TEST_F(TunablesAfterKillTest, SigtermAndSighupPutTheSettingsBack) {
  for (const int sig : {SIGTERM, SIGHUP}) {
    SCOPED_TRACE(strsignal(sig));
    ChildProcess agent = StartChangingJob();
    ASSERT_EQ(kill(agent.Pid(), sig), 0);
    ASSERT_TRUE(agent.WaitFor(std::chrono::seconds(30)));
    EXPECT_EQ(agent.ExitDescription(),
              "killed by signal " + std::to_string(sig) + " (" + strsignal(sig) + ")");
    ExpectPutBack();
    EXPECT_NE(Slurp(dir_ + "/agent-long.log").find("restored the queue settings of"),
              std::string::npos);
  }
}

TEST_F(TunablesAfterKillTest, ServeStdioPutsTheSettingsBackOnSigterm) {
  ChildProcess agent = StartChangingJob(/*serving=*/true);
  ASSERT_EQ(kill(agent.Pid(), SIGTERM), 0);
  ASSERT_TRUE(agent.WaitFor(std::chrono::seconds(30)));
  EXPECT_EQ(agent.ExitDescription(), "killed by signal 15 (Terminated)");
  ExpectPutBack();
}

TEST_F(TunablesAfterKillTest, AfterSigkillTheNextAgentRunPutsThemBack) {
  KillNine();
  JobSpec next = WriteJob(loop_->path());
  next.name = "next";
  next.rw = Direction::Read;
  const AgentRun run = RunAgent(next);
  EXPECT_EQ(run.exit, "exited with status 0") << run.log;
  EXPECT_NE(run.log.find("storbed-agent: restored the queue settings a killed agent left changed"),
            std::string::npos)
      << run.log;
  ExpectPutBack();
}

TEST_F(TunablesAfterKillTest, AfterSigkillStorbedCleanupPutsThemBack) {
  KillNine();
  const std::string name = fs::path(loop_->path()).filename();
  const testing::CliRun run =
      testing::RunCli({"cleanup", "--no-libvirt", "--work-dir", journals_}, dir_ + "/cleanup.log");
  EXPECT_EQ(run.exit, "exited with status 0") << run.log;
  EXPECT_NE(run.log.find("removed changed queue settings of " + name), std::string::npos)
      << run.log;
  ExpectPutBack();
}

}  // namespace agent_safety_test
}  // namespace storbed
