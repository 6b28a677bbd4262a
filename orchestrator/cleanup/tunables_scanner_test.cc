#include "cleanup/tunables_scanner.h"

#include <gtest/gtest.h>

#include "cleanup/test_support.h"
#include "file_read.h"
#include "tunables_journal.h"

namespace storbed {
namespace {

using cleanup_test::FakeHost;
using cleanup_test::RecordingActions;
using cleanup_test::WriteFile;

class TunablesScannerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    WriteFile(host_.sys() + "/block/loop4/dev", "7:4\n");
    WriteFile(host_.sys() + "/block/loop4/queue/read_ahead_kb", "0\n");
  }
  // A journal dir as a standalone agent with this owner makes it.
  std::string AddJournal(const std::string& suffix, const OwnerMarker& owner) {
    const std::string dir = host_.work() + "/" + kTunablesDirPrefix + suffix;
    WriteFile(dir + "/owner", FormatOwnerMarker(owner));
    std::filesystem::permissions(dir, std::filesystem::perms::owner_all);  // as mkdtemp makes it
    WriteTunablesJournal(
        dir,
        {.device = "loop4",
         .dev_number = "7:4",
         .original = {
             .read_ahead_kb = 2560, .scheduler = "", .nr_requests = -1, .max_sectors_kb = -1}});
    return dir;
  }
  std::unique_ptr<LeftoverScanner> Scanner() {
    HostScanContext context;
    context.proc_root = host_.proc();
    context.sys_root = host_.sys();
    context.work_roots = {host_.work()};
    context.this_host = "lab1";
    context.actions = &actions_;
    return MakeTunablesScanner(context);
  }
  FakeHost host_;
  RecordingActions actions_;
};

// Issue 38: a standalone agent SIGKILLed mid-job left read_ahead_kb at 0 instead of 2560.
TEST_F(TunablesScannerTest, CleanupAfterSigkillPutsTheOriginalsBackThenRemovesTheJournal) {
  const std::string dir = AddJournal("a", {.pid = 4711, .start_ticks = 9, .host = "lab1"});
  auto scanner = Scanner();
  const auto found = scanner->Find();
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].label, "changed queue settings of loop4 (journal " + dir + ")");
  EXPECT_EQ(found[0].reason, "its agent pid 4711 gone");
  scanner->Remove(found[0]);
  EXPECT_EQ(ReadFileOrEmpty(host_.sys() + "/block/loop4/queue/read_ahead_kb"), "2560");
  EXPECT_EQ(actions_.calls, std::vector<std::string>{"rmtree " + dir});
}

TEST_F(TunablesScannerTest, ALiveAgentAnotherHostsAndAnUnmarkedDirAreLeftAlone) {
  host_.AddProcess(4711, 1, 9, {"storbed-agent"});
  AddJournal("live", {.pid = 4711, .start_ticks = 9, .host = "lab1"});
  AddJournal("far", {.pid = 99, .start_ticks = 9, .host = "lab2"});
  std::filesystem::create_directories(host_.work() + "/" + kTunablesDirPrefix + "mine");
  EXPECT_TRUE(Scanner()->Find().empty());
}

// The restore fails (the queue file is gone): the journal stays for the next try.
TEST_F(TunablesScannerTest, AFailedRestoreKeepsTheJournal) {
  AddJournal("a", {.pid = 4711, .start_ticks = 9, .host = "lab1"});
  std::filesystem::remove(host_.sys() + "/block/loop4/queue/read_ahead_kb");
  auto scanner = Scanner();
  const auto found = scanner->Find();
  ASSERT_EQ(found.size(), 1u);
  EXPECT_THROW(scanner->Remove(found[0]), std::exception);
  EXPECT_TRUE(actions_.calls.empty());
}

}  // namespace
}  // namespace storbed
