#include "owner_marker.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "execute/temp_dir.h"
#include "proc_stat.h"

namespace storbed {
namespace {

TEST(ProcStatTest, CommMayHoldSpacesAndParentheses) {
  const auto stat = ParseProcStat(
      "4242 (qemu (x) y) S 1 4242 4242 0 -1 4194560 1 0 0 0 5 6 0 0 20 0 9 0 123456 1 2 3\n");
  ASSERT_TRUE(stat);
  EXPECT_EQ(stat->pid, 4242);
  EXPECT_EQ(stat->comm, "qemu (x) y");
  EXPECT_EQ(stat->state, 'S');
  EXPECT_EQ(stat->ppid, 1);
  EXPECT_EQ(stat->start_ticks, 123456u);
}

TEST(ProcStatTest, MalformedLinesGiveNothing) {
  EXPECT_FALSE(ParseProcStat(""));
  EXPECT_FALSE(ParseProcStat("12 (x) S 1 2 3"));  // no field 22
  EXPECT_FALSE(ParseProcStat("x (a) S 1 0 0 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 5"));
}

TEST(OwnerMarkerTest, ThisProcessRoundTrips) {
  const OwnerMarker me = CurrentProcessOwner();
  EXPECT_EQ(me.pid, getpid());
  EXPECT_GT(me.start_ticks, 0u);
  EXPECT_EQ(me.host, ThisHostName());
  const auto parsed = ParseOwnerMarker(FormatOwnerMarker(me));
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->pid, me.pid);
  EXPECT_EQ(parsed->start_ticks, me.start_ticks);
  EXPECT_EQ(parsed->host, me.host);
}

TEST(OwnerMarkerTest, RejectsWhatIsNotAMarker) {
  EXPECT_FALSE(ParseOwnerMarker(""));
  EXPECT_FALSE(ParseOwnerMarker("1234"));
  EXPECT_FALSE(ParseOwnerMarker(R"({"pid": 0, "start_ticks": 1, "host": "h"})"));
  EXPECT_FALSE(ParseOwnerMarker(R"({"pid": 5, "host": "h"})"));
  // Another program's marker of the same shape is not storbed's.
  EXPECT_FALSE(ParseOwnerMarker(R"({"pid": 5, "start_ticks": 1, "host": "h"})"));
  EXPECT_FALSE(ParseOwnerMarker(R"({"pid": 5, "start_ticks": 1, "host": "h", "program": "x"})"));
  EXPECT_TRUE(
      ParseOwnerMarker(R"({"pid": 5, "start_ticks": 1, "host": "h", "program": "storbed"})"));
}

TEST(TempDirTest, HoldsAnOwnerMarkerOfThisProcessAndGoesAway) {
  std::string path;
  {
    TempDir dir(::testing::TempDir(), "storbed-work-");
    path = dir.path();
    std::ifstream in(path + "/" + kOwnerFileName);
    const std::string text(std::istreambuf_iterator<char>(in), {});
    const auto owner = ParseOwnerMarker(text);
    ASSERT_TRUE(owner) << text;
    EXPECT_EQ(owner->pid, getpid());
    EXPECT_EQ(owner->start_ticks, CurrentProcessOwner().start_ticks);
  }
  EXPECT_FALSE(std::filesystem::exists(path));
}

}  // namespace
}  // namespace storbed
