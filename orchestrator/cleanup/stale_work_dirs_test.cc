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
  std::vector<WorkDirVerdict> Judge(
      std::chrono::system_clock::time_point now = std::chrono::system_clock::now()) {
    table_ = ProcessTable::Read(host_.proc(), /*with_fds=*/true);
    loops_ = ReadAttachedLoops(host_.sys());
    auto verdicts = JudgeWorkDirs(
        {host_.work(), host_.root() + "/missing"},
        WorkDirContext{.processes = table_, .loops = loops_, .this_host = "here", .now = now});
    std::sort(verdicts.begin(), verdicts.end(),
              [](const auto& a, const auto& b) { return a.path < b.path; });
    return verdicts;
  }
  std::chrono::system_clock::time_point InAnHour() {
    return std::chrono::system_clock::now() + kUnmarkedMinAge + std::chrono::minutes(1);
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

TEST_F(StaleWorkDirsTest, UnmarkedDirIsStaleOnlyWhenOldAndUnused) {
  const std::string recent = host_.AddWorkDir("recent", nullptr);
  EXPECT_EQ(Judge()[0].state, WorkDirState::Live);
  const auto later = Judge(InAnHour());
  ASSERT_EQ(later.size(), 1u);
  EXPECT_EQ(later[0].state, WorkDirState::Stale);
  EXPECT_NE(later[0].reason.find("no owner file, unused, unchanged for"), std::string::npos);

  // In use through an open file, an argv path, or a loop device over a file in it.
  host_.AddProcess(300, 1, 1, {"x"}, {recent + "/backing.raw"});
  EXPECT_EQ(Judge(InAnHour())[0].reason, "no owner file; in use by pid 300");
}

TEST_F(StaleWorkDirsTest, UnmarkedDirHeldThroughALoopDeviceOrArgvIsLive) {
  const std::string dir = host_.AddWorkDir("held", nullptr);
  host_.AddLoop(4, dir + "/backing.raw");
  host_.AddProcess(301, 1, 1, {"agent"}, {"/dev/loop4"});
  EXPECT_EQ(Judge(InAnHour())[0].state, WorkDirState::Live);
  fs::remove_all(host_.proc() + "/301");
  host_.AddProcess(302, 1, 1, {"qemu", "filename=" + dir + "/backing.raw,aio=threads"});
  EXPECT_EQ(Judge(InAnHour())[0].reason, "no owner file; in use by pid 302");
}

TEST_F(StaleWorkDirsTest, IgnoresOtherNamesFilesAndSymlinks) {
  fs::create_directories(host_.work() + "/storbed-images");
  cleanup_test::WriteFile(host_.work() + "/storbed-work-file", "not a dir");
  fs::create_directories(host_.root() + "/elsewhere");
  fs::create_directory_symlink(host_.root() + "/elsewhere", host_.work() + "/storbed-work-link");
  EXPECT_TRUE(Judge(InAnHour()).empty());
}

TEST_F(StaleWorkDirsTest, UnparsableOwnerFileCountsAsUnmarked) {
  const std::string dir = host_.AddWorkDir("bad", nullptr);
  cleanup_test::WriteFile(dir + "/owner", "{\"pid\": \"x\"}");
  EXPECT_EQ(Judge()[0].state, WorkDirState::Live);
  EXPECT_EQ(Judge(InAnHour())[0].state, WorkDirState::Stale);
}

}  // namespace
}  // namespace storbed
