#include "backend/child_process.h"

#include <signal.h>
#include <unistd.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cerrno>
#include <cstdio>
#include <fstream>
#include <sstream>

namespace storbed {
namespace {

using namespace std::chrono_literals;
using ::testing::HasSubstr;

// Hands out log paths and removes them after the test.
class ChildProcessTest : public ::testing::Test {
 protected:
  void TearDown() override {
    for (const std::string& p : logs_) std::remove(p.c_str());
  }
  std::string LogPath(const std::string& name) {
    logs_.push_back(::testing::TempDir() + "/child-" + std::to_string(getpid()) + "-" + name +
                    ".log");
    return logs_.back();
  }

 private:
  std::vector<std::string> logs_;
};

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// True if no process (not even a zombie) has this pid.
bool Gone(int pid) { return ::kill(pid, 0) != 0 && errno == ESRCH; }

TEST_F(ChildProcessTest, ExitStatusAndLog) {
  std::string log = LogPath("exit3");
  ChildProcess p = ChildProcess::Start({"/bin/sh", "-c", "echo out; echo err >&2; exit 3"}, log);
  EXPECT_TRUE(p.WaitFor(5s));
  EXPECT_FALSE(p.Running());
  EXPECT_EQ(p.ExitDescription(), "exited with status 3");
  EXPECT_FALSE(p.ExitedSuccessfully());
  EXPECT_EQ(ReadFile(log), "out\nerr\n");
  EXPECT_TRUE(Gone(p.Pid()));
}

TEST_F(ChildProcessTest, LogIsTruncated) {
  std::string log = LogPath("trunc");
  std::ofstream(log) << "an old and much longer log than the new one\n";
  ChildProcess p = ChildProcess::Start({"/bin/sh", "-c", "echo new"}, log);
  ASSERT_TRUE(p.WaitFor(5s));
  EXPECT_EQ(ReadFile(log), "new\n");
}

TEST_F(ChildProcessTest, SearchesPathAndTerminatesWithSigterm) {
  ChildProcess p = ChildProcess::Start({"sleep", "30"}, LogPath("sleep"));
  EXPECT_TRUE(p.Running());
  EXPECT_EQ(p.ExitDescription(), "running");
  EXPECT_FALSE(p.ExitedSuccessfully());
  auto start = std::chrono::steady_clock::now();
  p.Terminate(2s);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 1s);
  EXPECT_EQ(p.ExitDescription(), "killed by signal 15 (Terminated)");
  EXPECT_FALSE(p.ExitedSuccessfully());
  EXPECT_TRUE(Gone(p.Pid()));
}

TEST_F(ChildProcessTest, EscalatesToSigkillWhenSigtermIsIgnored) {
  ChildProcess p =
      ChildProcess::Start({"/bin/sh", "-c", "trap '' TERM; exec sleep 30"}, LogPath("trap"));
  // SIG_IGN survives exec: sleep itself ignores SIGTERM. Let the shell get there.
  std::this_thread::sleep_for(200ms);
  auto start = std::chrono::steady_clock::now();
  p.Terminate(300ms);
  auto took = std::chrono::steady_clock::now() - start;
  EXPECT_GE(took, 300ms);
  EXPECT_LT(took, 5s);
  EXPECT_EQ(p.ExitDescription(), "killed by signal 9 (Killed)");
  EXPECT_TRUE(Gone(p.Pid()));
}

TEST_F(ChildProcessTest, DestructorLeavesNoProcess) {
  int pid;
  {
    ChildProcess p = ChildProcess::Start({"/bin/sleep", "30"}, LogPath("dtor"));
    pid = p.Pid();
    ASSERT_GT(pid, 0);
    EXPECT_FALSE(Gone(pid));
  }
  EXPECT_TRUE(Gone(pid));
}

TEST_F(ChildProcessTest, MovedFromOwnsNothing) {
  ChildProcess a = ChildProcess::Start({"/bin/sleep", "30"}, LogPath("move"));
  int pid = a.Pid();
  ChildProcess b = std::move(a);
  EXPECT_EQ(b.Pid(), pid);
  EXPECT_TRUE(b.Running());
  b.Terminate(1s);
  EXPECT_TRUE(Gone(pid));
}

TEST_F(ChildProcessTest, MissingProgramIsATypedError) {
  try {
    ChildProcess::Start({"storbed-no-such-program"}, LogPath("missing"));
    FAIL();
  } catch (const ChildProcessError& e) {
    EXPECT_THAT(e.what(), HasSubstr("storbed-no-such-program: not found in PATH"));
  }
  EXPECT_THROW(ChildProcess::Start({"/nonexistent/prog"}, LogPath("missing2")),
               ChildProcessError);
}

TEST(DescribeWaitStatusTest, SignalsAndExits) {
  EXPECT_EQ(DescribeWaitStatus(1 << 8), "exited with status 1");
  EXPECT_EQ(DescribeWaitStatus(9), "killed by signal 9 (Killed)");
}

TEST_F(ChildProcessTest, ExitStatusZeroIsSuccess) {
  ChildProcess p = ChildProcess::Start({"/bin/true"}, LogPath("true"));
  ASSERT_TRUE(p.WaitFor(5s));
  EXPECT_TRUE(p.ExitedSuccessfully());
}

TEST(ProgramPathTest, FindsABareNameInPathAndKeepsAPathAsGiven) {
  const std::string sh = ProgramPath("sh");
  ASSERT_FALSE(sh.empty());
  EXPECT_EQ(access(sh.c_str(), X_OK), 0) << sh;
  EXPECT_EQ(ProgramPath("./relative/prog"), "./relative/prog");
  EXPECT_EQ(ProgramPath("storbed-no-such-program"), "");
}

}  // namespace
}  // namespace storbed
