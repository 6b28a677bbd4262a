#include "results/out_dir_claim.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "results/results_dir.h"

namespace storbed {
namespace {

namespace fs = std::filesystem;

class OutDirClaimTest : public ::testing::Test {
 protected:
  void SetUp() override {
    base_ = ::testing::TempDir() + "/out-dir-claim-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name();
    fs::remove_all(base_);
    fs::create_directories(base_);
    out_ = base_ + "/out";
  }
  void TearDown() override { fs::remove_all(base_); }
  std::string base_, out_;
  std::ostringstream log_;
};

std::string Slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST_F(OutDirClaimTest, ANewDirectoryIsCreatedAndLockedWithOurPid) {
  OutDirClaim claim(out_, log_);
  EXPECT_TRUE(fs::is_directory(out_));
  EXPECT_EQ(Slurp(out_ + "/.storbed.lock"), std::to_string(getpid()) + "\n");
  EXPECT_EQ(claim.moved_to(), "");
  EXPECT_EQ(log_.str(), "");
}

// Regression: two runs into one --out both exited 0 and only the second's records stayed.
TEST_F(OutDirClaimTest, ASecondClaimWhileTheFirstHoldsItRefusesNamingTheHoldersPid) {
  OutDirClaim first(out_, log_);
  std::ofstream(out_ + "/manifest.json") << "{}";
  // flock is per open file description: a second process is the real case.
  const pid_t child = fork();
  if (child == 0) {
    std::ostringstream log;
    try {
      OutDirClaim second(out_, log);
    } catch (const OutDirError& e) {
      const std::string want = "--out " + out_ + ": another storbed run (pid " +
                               std::to_string(getppid()) +
                               ") is writing there; wait for it to end or give another --out";
      _exit(e.what() == want ? 0 : 3);
    }
    _exit(4);
  }
  int status = 0;
  waitpid(child, &status, 0);
  EXPECT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "3: wrong message, 4: not refused";
  EXPECT_EQ(Slurp(out_ + "/manifest.json"), "{}");  // the first run's files untouched
}

// Issue 38 item 6: an import during a run stored its runs so far for good.
TEST_F(OutDirClaimTest, ALiveWriterIsNamedWhileItHoldsTheDirectoryAndNotAfter) {
  EXPECT_EQ(LiveWriterOf(out_), "");  // no lock file at all
  {
    OutDirClaim claim(out_, log_);
    EXPECT_EQ(LiveWriterOf(out_), "");  // our own run is not another writer
    const pid_t child = fork();
    if (child == 0) _exit(LiveWriterOf(out_) == std::to_string(getppid()) ? 0 : 3);
    int status = 0;
    waitpid(child, &status, 0);
    EXPECT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0) << "the holder's pid not named from another process";
  }
  EXPECT_TRUE(fs::exists(out_ + "/.storbed.lock"));
  EXPECT_EQ(LiveWriterOf(out_), "");  // released: the run ended or was killed
}

// Regression: a rerun into an existing out dir overwrote the earlier results.
TEST_F(OutDirClaimTest, AnEarlierRunsResultsAreMovedAsideAndSaidSo) {
  fs::create_directories(out_);
  std::ofstream(out_ + "/results.json") << "[]";
  std::ofstream(out_ + "/manifest.json") << "{\"session\": \"old\"}";
  {
    OutDirClaim claim(out_, log_);
    EXPECT_EQ(claim.moved_to(), out_ + ".earlier-1");
    EXPECT_EQ(log_.str(), "storbed: note: " + out_ +
                              " held an earlier run's results; moved them to " + out_ +
                              ".earlier-1\n");
    EXPECT_FALSE(fs::exists(out_ + "/results.json"));
  }
  EXPECT_EQ(Slurp(out_ + ".earlier-1/manifest.json"), "{\"session\": \"old\"}");
  std::ofstream(out_ + "/results.json") << "[]";
  OutDirClaim again(out_, log_);
  EXPECT_EQ(again.moved_to(), out_ + ".earlier-2");
  EXPECT_TRUE(fs::exists(out_ + ".earlier-1/results.json"));
}

TEST_F(OutDirClaimTest, ADirectoryOfOtherFilesIsRefusedAndGetsNoLockFile) {
  fs::create_directories(out_);
  std::ofstream(out_ + "/notes.txt") << "mine";
  try {
    OutDirClaim claim(out_, log_);
    FAIL() << "not refused";
  } catch (const OutDirError& e) {
    EXPECT_EQ(std::string(e.what()), "--out " + out_ +
                                         ": holds files that are not storbed results (notes.txt); "
                                         "give a new or empty directory");
  }
  EXPECT_FALSE(fs::exists(out_ + "/.storbed.lock"));
}

TEST_F(OutDirClaimTest, AFileInsteadOfADirectoryIsRefused) {
  std::ofstream(out_) << "x";
  try {
    OutDirClaim claim(out_, log_);
    FAIL() << "not refused";
  } catch (const OutDirError& e) {
    EXPECT_EQ(std::string(e.what()), "--out " + out_ + ": exists and is not a directory");
  }
}

}  // namespace
}  // namespace storbed
