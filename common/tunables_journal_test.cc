#include "tunables_journal.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "file_read.h"
#include "host_identity.h"
#include "owner_marker.h"

namespace storbed {
namespace {

namespace fs = std::filesystem;

class TunablesJournalTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = ::testing::TempDir() + "/tunables-journal-" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
    fs::remove_all(dir_);
    fs::create_directories(dir_ + "/sys/block/loop9/queue");
    std::ofstream(dir_ + "/sys/block/loop9/dev") << "7:9\n";
    for (const char* attr : {"read_ahead_kb", "scheduler", "nr_requests", "max_sectors_kb"})
      std::ofstream(dir_ + "/sys/block/loop9/queue/" + attr) << "changed\n";
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string Queue(const char* attr) {
    return ReadFileOrEmpty(dir_ + "/sys/block/loop9/queue/" + attr);
  }
  // A dir as the agent makes it, owned by `owner`.
  std::string JournalDir(const std::string& name, const OwnerMarker& owner) {
    const std::string d = dir_ + "/" + name;
    fs::create_directories(d);
    fs::permissions(d, fs::perms::owner_all);  // as mkdtemp makes it
    std::ofstream(d + "/" + kOwnerFileName) << FormatOwnerMarker(owner);
    WriteTunablesJournal(d, journal_);
    return d;
  }
  std::string dir_;
  TunablesJournal journal_{
      .device = "loop9",
      .dev_number = "7:9",
      .original = {
          .read_ahead_kb = 128, .scheduler = "", .nr_requests = 256, .max_sectors_kb = -1}};
};

TEST_F(TunablesJournalTest, AWrittenJournalReadsBackWhole) {
  fs::create_directories(dir_ + "/j");
  WriteTunablesJournal(dir_ + "/j", journal_);
  EXPECT_EQ(ParseTunablesJournal(ReadFileOrEmpty(dir_ + "/j/tunables.json")), journal_);
  EXPECT_FALSE(fs::exists(dir_ + "/j/tunables.json.tmp"));
}

TEST_F(TunablesJournalTest, AJournalThatNamesAPathIsRefused) {
  EXPECT_FALSE(ParseTunablesJournal(R"({"device":"../sda","dev":"8:0","original":{}})"));
  EXPECT_FALSE(ParseTunablesJournal(R"({"device":"sda"})"));
  EXPECT_FALSE(ParseTunablesJournal("not json"));
}

TEST_F(TunablesJournalTest, OnlyTheChangedSettingsAreWrittenBack) {
  EXPECT_EQ(RestoreTunables(journal_, dir_ + "/sys"), "loop9: nr_requests 256, read_ahead_kb 128");
  EXPECT_EQ(Queue("read_ahead_kb"), "128");
  EXPECT_EQ(Queue("nr_requests"), "256");
  EXPECT_EQ(Queue("scheduler"), "changed\n");
  EXPECT_EQ(Queue("max_sectors_kb"), "changed\n");
}

// A loop device detached since and its name given to another backing: not ours to set.
TEST_F(TunablesJournalTest, ADeviceWhoseNumberChangedIsLeftAlone) {
  std::ofstream(dir_ + "/sys/block/loop9/dev") << "7:10\n";
  EXPECT_EQ(RestoreTunables(journal_, dir_ + "/sys"), "loop9: gone");
  EXPECT_EQ(Queue("read_ahead_kb"), "changed\n");
  journal_.device = "loop8";
  EXPECT_EQ(RestoreTunables(journal_, dir_ + "/sys"), "loop8: gone");
}

TEST_F(TunablesJournalTest, OnlyDirsOfADeadOwnerOnThisHostAreStale) {
  // An empty fake /proc: every owner but a live one of the real /proc is gone.
  fs::create_directories(dir_ + "/proc");
  const OwnerMarker gone{.pid = 4711, .start_ticks = 5, .host = ThisHostName()};
  const std::string stale = JournalDir(std::string(kTunablesDirPrefix) + "a", gone);
  JournalDir(std::string(kTunablesDirPrefix) + "b",
             OwnerMarker{.pid = 4711, .start_ticks = 5, .host = "another-host"});
  fs::create_directories(dir_ + "/" + kTunablesDirPrefix + "c");  // no owner mark
  JournalDir("storbed-work-d", gone);
  // Open to others: anyone could have written it, so root does not act on it.
  fs::permissions(JournalDir(std::string(kTunablesDirPrefix) + "f", gone),
                  fs::perms::group_read | fs::perms::group_exec | fs::perms::others_read |
                      fs::perms::others_exec,
                  fs::perm_options::add);
  EXPECT_EQ(StaleTunablesDirs(dir_, ThisHostName(), dir_ + "/proc"),
            std::vector<std::string>{stale});
  // This process runs: its own journal is never stale.
  fs::remove_all(stale);
  JournalDir(std::string(kTunablesDirPrefix) + "e", CurrentProcessOwner());
  EXPECT_TRUE(StaleTunablesDirs(dir_, ThisHostName()).empty());
}

}  // namespace
}  // namespace storbed
