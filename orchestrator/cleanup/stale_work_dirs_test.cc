#include "cleanup/stale_work_dirs.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "cleanup/test_support.h"

namespace storbed {
namespace {

using cleanup_test::FakeHost;
namespace fs = std::filesystem;

class StaleWorkDirsTest : public ::testing::Test {
 protected:
  std::vector<WorkDirVerdict> Judge() {
    table_ = ProcessTable::Read(host_.proc(), /*with_fds=*/true);
    loops_ = ReadAttachedLoops(host_.sys());
    auto verdicts =
        JudgeWorkDirs({host_.work(), host_.root() + "/missing"},
                      WorkDirContext{.processes = table_, .loops = loops_, .this_host = "here"});
    std::sort(verdicts.begin(), verdicts.end(),
              [](const auto& a, const auto& b) { return a.path < b.path; });
    return verdicts;
  }
  // Sets a directory's mtime to a year ago.
  static void MakeOld(const std::string& dir) {
    fs::last_write_time(dir, fs::file_time_type::clock::now() - std::chrono::hours(24 * 365));
  }

  FakeHost host_;
  ProcessTable table_;
  std::vector<AttachedLoop> loops_;
};

TEST_F(StaleWorkDirsTest, OwnerGoneIsStaleOwnerRunningIsLive) {
  host_.AddProcess(100, 1, 7000, {"storbed", "run"});
  const OwnerMarker live{.pid = 100, .start_ticks = 7000, .host = "here"};
  const OwnerMarker dead{.pid = 200, .start_ticks = 10, .host = "here"};
  const OwnerMarker reused{.pid = 100, .start_ticks = 6999, .host = "here"};
  host_.AddWorkDir("a-live", &live);
  host_.AddWorkDir("b-dead", &dead);
  host_.AddWorkDir("c-reused", &reused);
  const auto v = Judge();
  ASSERT_EQ(v.size(), 3u);
  EXPECT_EQ(v[0].state, WorkDirState::Live);
  EXPECT_EQ(v[0].reason, "owner pid 100 running");
  EXPECT_EQ(v[1].state, WorkDirState::Stale);
  EXPECT_EQ(v[1].reason, "owner pid 200 gone");
  EXPECT_EQ(v[2].state, WorkDirState::Stale) << "a reused pid must not keep a dead run's dir";
  EXPECT_EQ(StaleOnly(v).size(), 2u);
}

TEST_F(StaleWorkDirsTest, OwnerOnAnotherHostIsElsewhere) {
  const OwnerMarker other{.pid = 5, .start_ticks = 1, .host = "there"};
  host_.AddWorkDir("x", &other);
  const auto v = Judge();
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].state, WorkDirState::Elsewhere);
  EXPECT_EQ(v[0].reason, "owner pid 5 on host there, which cannot be checked from here");
}

// Regression (issue 38): cleanup removed a user's storbed-work-* directory that had no
// owner mark because it was unused and its mtime an hour old. Expected: kept, whatever its
// age; buggy: Stale.
TEST_F(StaleWorkDirsTest, UnmarkedDirIsKeptHoweverOldAndUnused) {
  const std::string dir = host_.AddWorkDir("users", nullptr);
  MakeOld(dir);
  const auto v = Judge();
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].state, WorkDirState::Live);
  EXPECT_EQ(v[0].reason, "no owner mark: not provably storbed's, left alone");
  EXPECT_TRUE(StaleOnly(v).empty());
}

// Staleness is the owner's liveness, never the mtime: an old dir of a live owner is kept, a
// just-made dir of a dead owner is removed.
TEST_F(StaleWorkDirsTest, OldMtimeAloneNeverMakesStaleOwnerLivenessDecides) {
  host_.AddProcess(100, 1, 7000, {"storbed", "run"});
  const OwnerMarker live{.pid = 100, .start_ticks = 7000, .host = "here"};
  const OwnerMarker dead{.pid = 200, .start_ticks = 10, .host = "here"};
  MakeOld(host_.AddWorkDir("a-old-live", &live));
  host_.AddWorkDir("b-new-dead", &dead);
  const auto v = Judge();
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0].state, WorkDirState::Live);
  EXPECT_EQ(v[1].state, WorkDirState::Stale);
}

// Regression (issue 38): `storbed cleanup` never removed the bare-metal agent's
// storbed-agent-* directories. Expected: judged like storbed-work-* ones.
TEST_F(StaleWorkDirsTest, AgentDirsAreJudgedByTheirOwnerToo) {
  host_.AddProcess(100, 1, 7000, {"storbed", "run"});
  const OwnerMarker live{.pid = 100, .start_ticks = 7000, .host = "here"};
  const OwnerMarker dead{.pid = 200, .start_ticks = 10, .host = "here"};
  const std::pair<const char*, const OwnerMarker*> dirs[] = {
      {"a-dead", &dead}, {"b-live", &live}, {"c-unmarked", nullptr}};
  for (const auto& [name, owner] : dirs) {
    const std::string dir = host_.work() + "/storbed-agent-" + name;
    fs::create_directories(dir);
    if (owner) cleanup_test::WriteFile(dir + "/owner", FormatOwnerMarker(*owner));
  }
  const auto v = Judge();
  ASSERT_EQ(v.size(), 3u);
  EXPECT_EQ(v[0].path, host_.work() + "/storbed-agent-a-dead");
  EXPECT_EQ(v[0].state, WorkDirState::Stale);
  EXPECT_EQ(v[1].state, WorkDirState::Live);
  EXPECT_EQ(v[2].state, WorkDirState::Live);
  ASSERT_EQ(StaleOnly(v).size(), 1u);
}

TEST_F(StaleWorkDirsTest, UnmarkedDirInUseNamesItsUser) {
  const std::string recent = host_.AddWorkDir("recent", nullptr);
  // In use through an open file, an argv path, or a loop device over a file in it.
  host_.AddProcess(300, 1, 1, {"x"}, {recent + "/backing.raw"});
  EXPECT_EQ(Judge()[0].reason, "no owner mark; in use by pid 300");
}

TEST_F(StaleWorkDirsTest, UnmarkedDirHeldThroughALoopDeviceOrArgvIsLive) {
  const std::string dir = host_.AddWorkDir("held", nullptr);
  host_.AddLoop(4, dir + "/backing.raw");
  host_.AddProcess(301, 1, 1, {"agent"}, {"/dev/loop4"});
  EXPECT_EQ(Judge()[0].state, WorkDirState::Live);
  fs::remove_all(host_.proc() + "/301");
  host_.AddProcess(302, 1, 1, {"qemu", "filename=" + dir + "/backing.raw,aio=threads"});
  EXPECT_EQ(Judge()[0].reason, "no owner mark; in use by pid 302");
}

TEST_F(StaleWorkDirsTest, IgnoresOtherNamesFilesAndSymlinks) {
  fs::create_directories(host_.work() + "/storbed-images");
  cleanup_test::WriteFile(host_.work() + "/storbed-work-file", "not a dir");
  fs::create_directories(host_.root() + "/elsewhere");
  fs::create_directory_symlink(host_.root() + "/elsewhere", host_.work() + "/storbed-work-link");
  EXPECT_TRUE(Judge().empty());
}

TEST_F(StaleWorkDirsTest, UnparsableOwnerFileCountsAsUnmarkedAndIsKept) {
  const std::string dir = host_.AddWorkDir("bad", nullptr);
  cleanup_test::WriteFile(dir + "/owner", "{\"pid\": \"x\"}");
  MakeOld(dir);
  EXPECT_EQ(Judge()[0].state, WorkDirState::Live);
}

}  // namespace
}  // namespace storbed
