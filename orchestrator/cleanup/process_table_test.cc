#include "cleanup/process_table.h"

#include <gtest/gtest.h>

#include "cleanup/loop_table.h"
#include "cleanup/test_support.h"

namespace storbed {
namespace {

using cleanup_test::FakeHost;

TEST(ProcessTableTest, ReadsPidsParentsArgvAndFdsAndSkipsOtherEntries) {
  FakeHost host;
  host.AddProcess(10, 1, 500, {"/usr/bin/storbed", "run", "x.json"}, {"/var/tmp/a", "pipe:[9]"},
                  "stor bed) (x");
  host.AddProcess(11, 10, 600, {"qemu-system-x86_64", "-name", "storbed-nvme"});
  cleanup_test::WriteFile(host.proc() + "/self/stat", "garbage");
  cleanup_test::WriteFile(host.proc() + "/12/stat", "truncated (x) S");

  const ProcessTable table = ProcessTable::Read(host.proc(), /*with_fds=*/true);
  ASSERT_EQ(table.processes().size(), 2u);
  const ProcessInfo* storbed = table.Find(10);
  ASSERT_NE(storbed, nullptr);
  EXPECT_EQ(storbed->comm, "stor bed) (x");
  EXPECT_EQ(storbed->ppid, 1);
  EXPECT_EQ(storbed->start_ticks, 500u);
  EXPECT_EQ(storbed->argv, (std::vector<std::string>{"/usr/bin/storbed", "run", "x.json"}));
  EXPECT_EQ(storbed->open_files.size(), 2u);
  EXPECT_EQ(table.Find(11)->ppid, 10);
  EXPECT_EQ(table.Find(12), nullptr);

  EXPECT_TRUE(table.IsAlive({.pid = 10, .start_ticks = 500, .host = "h"}));
  // Same pid, another start: a later process got the pid, the owner is gone.
  EXPECT_FALSE(table.IsAlive({.pid = 10, .start_ticks = 499, .host = "h"}));
  EXPECT_FALSE(table.IsAlive({.pid = 13, .start_ticks = 500, .host = "h"}));
  // btime 1700000000 + 600 ticks at 100 Hz.
  EXPECT_DOUBLE_EQ(*table.StartedAt(*table.Find(11)), 1700000006.0);
}

TEST(ProcessTableTest, WithoutFdsLeavesOpenFilesEmpty) {
  FakeHost host;
  host.AddProcess(10, 1, 5, {"a"}, {"/x"});
  EXPECT_TRUE(ProcessTable::Read(host.proc(), false).Find(10)->open_files.empty());
}

TEST(ProcessTableTest, PathIsInsideComparesWholeComponents) {
  EXPECT_TRUE(PathIsInside("/var/tmp/storbed-work-a/backing.raw", "/var/tmp/storbed-work-a"));
  EXPECT_TRUE(PathIsInside("/var/tmp/storbed-work-a", "/var/tmp/storbed-work-a/"));
  EXPECT_TRUE(PathIsInside("/var/tmp/storbed-work-a/x/../y", "/var/tmp/storbed-work-a"));
  EXPECT_FALSE(PathIsInside("/var/tmp/storbed-work-ab/backing.raw", "/var/tmp/storbed-work-a"));
  EXPECT_FALSE(PathIsInside("/var/tmp/storbed-work-a/../b", "/var/tmp/storbed-work-a"));
  EXPECT_FALSE(PathIsInside("/var/tmp", "/var/tmp/storbed-work-a"));
}

TEST(LoopTableTest, ListsAttachedLoopsAndStripsDeleted) {
  FakeHost host;
  host.AddLoop(3, "/var/tmp/storbed-work-a/backing.raw (deleted)");
  host.AddLoop(0, "/srv/disk.img");
  host.AddDetachedLoop(1);
  cleanup_test::WriteFile(host.sys() + "/block/sda/dev", "8:0\n");
  const auto loops = ReadAttachedLoops(host.sys());
  ASSERT_EQ(loops.size(), 2u);
  EXPECT_EQ(loops[0].device, "/dev/loop0");
  EXPECT_EQ(loops[0].backing_file, "/srv/disk.img");
  EXPECT_FALSE(loops[0].backing_deleted);
  EXPECT_EQ(loops[1].device, "/dev/loop3");
  EXPECT_EQ(loops[1].backing_file, "/var/tmp/storbed-work-a/backing.raw");
  EXPECT_TRUE(loops[1].backing_deleted);
}

}  // namespace
}  // namespace storbed
