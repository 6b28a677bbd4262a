#include "history/history_store.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "history/results_dir_for_test.h"

namespace storbed {
namespace {

namespace fs = std::filesystem;

class HistoryStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("storbed-history-test-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    db_ = (dir_ / "history.db").string();
  }
  void TearDown() override { fs::remove_all(dir_); }

  // A results directory of 3 repeats of one bare-metal cell at `iops`, session "s<h>"
  // started at <h> o'clock.
  std::string ResultsDir(const std::string& name, const std::string& session, double iops) {
    const fs::path dir = dir_ / name;
    WriteFakeResults(dir, {.session = session,
                           .started_at = "2026-12-01T0" + session.substr(1) + ":00:00Z",
                           .iops = iops,
                           .load_avg1 = "0.3"});
    return dir.string();
  }

  static std::string Bytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }

  fs::path dir_;
  std::string db_;
};

TEST_F(HistoryStoreTest, ASessionGoesInWholeOnceAndComesBackAsRecordsAndPoints) {
  HistoryStore store(db_, HistoryStore::Open::Create);
  EXPECT_EQ(store.SchemaVersion(), kHistorySchemaVersion);
  const ImportOutcome first = store.Import(ResultsDir("n1", "s1", 1000));
  EXPECT_FALSE(first.already_there);
  EXPECT_EQ(first.runs, 3u);
  EXPECT_EQ(first.session.scenario, "s");
  EXPECT_EQ(first.session.revision, "abc");
  EXPECT_TRUE(store.Import(dir_ / "n1").already_there);
  store.Import(ResultsDir("n2", "s2", 2000));
  const auto sessions = store.Sessions("s");
  ASSERT_EQ(sessions.size(), 2u);
  EXPECT_EQ(sessions[0].session, "s1");
  EXPECT_EQ(store.Sessions("s", "2026-12-01T02").size(), 1u);
  const auto records = store.Records(sessions[1].id);
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(records[0].result->iops, 2001);
  const auto points = store.Points({sessions[0].id, sessions[1].id}, "iops");
  ASSERT_EQ(points.size(), 6u);
  EXPECT_EQ(points[0].cell, "bare-metal r");
  EXPECT_EQ(points[5].value, 2003);
  EXPECT_NE(std::find(store.MetricNames().begin(), store.MetricNames().end(), "p99_us"),
            store.MetricNames().end());
}

TEST_F(HistoryStoreTest, TheClassIgnoresLoadAndRevisionButNotTheHost) {
  const auto manifest = [](const std::string& load, const std::string& rev, const std::string& cpu) {
    return nlohmann::json{{"environment", {{"cpu.model", cpu}, {"load.avg1", load},
                                           {"storbed.git_revision", rev}}}};
  };
  EXPECT_EQ(FingerprintClass(manifest("0.1", "a", "EPYC")),
            FingerprintClass(manifest("3.0", "b", "EPYC")));
  EXPECT_NE(FingerprintClass(manifest("0.1", "a", "EPYC")),
            FingerprintClass(manifest("0.1", "a", "Xeon")));
}

TEST_F(HistoryStoreTest, ANewerSchemaIsRefusedAndTheFileLeftAsItWas) {
  { HistoryStore(db_, HistoryStore::Open::Create).Import(ResultsDir("n1", "s1", 1000)); }
  {
    SqliteDb raw(db_, SqliteDb::Mode::ReadWriteCreate);
    raw.Exec("PRAGMA user_version = 99");
  }
  const std::string before = Bytes(db_);
  try {
    HistoryStore store(db_, HistoryStore::Open::Create);
    FAIL() << "opened a schema 99 database";
  } catch (const HistoryError& e) {
    EXPECT_NE(std::string(e.what()).find("history schema version 99 is newer than this storbed"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(Bytes(db_), before);
}

TEST_F(HistoryStoreTest, ACorruptFileOrSomebodyElsesDatabaseIsRefusedUntouched) {
  std::ofstream(db_) << std::string(8192, 'x');
  const std::string junk = Bytes(db_);
  EXPECT_THROW(HistoryStore(db_, HistoryStore::Open::Create), HistoryError);
  EXPECT_EQ(Bytes(db_), junk);
  const std::string other = (dir_ / "other.db").string();
  {
    SqliteDb raw(other, SqliteDb::Mode::ReadWriteCreate);
    raw.Exec("CREATE TABLE t (x)");
  }
  try {
    HistoryStore store(other, HistoryStore::Open::Create);
    FAIL();
  } catch (const HistoryError& e) {
    EXPECT_NE(std::string(e.what()).find("not a storbed history"), std::string::npos) << e.what();
  }
  EXPECT_THROW(HistoryStore((dir_ / "missing.db").string(), HistoryStore::Open::Existing),
               HistoryError);
  EXPECT_FALSE(fs::exists(dir_ / "missing.db"));
}

// The kind decides the exit code: what the user named is bad input (exit 2); SQLite failing
// to read the file is the host's (exit 1). Before issue 36, gate and history said 2 for both.
TEST_F(HistoryStoreTest, ASqliteIoErrorIsTheHostsAndAFileThatIsNoDatabaseIsBadInput) {
  auto kind_of = [](const std::string& path, HistoryStore::Open open) {
    try {
      HistoryStore store(path, open);
    } catch (const HistoryError& e) {
      return e.kind();
    }
    return ErrorKind::Internal;  // no error: the test fails below
  };
  std::ofstream(dir_ / "junk.db") << std::string(8192, 'x');
  EXPECT_EQ(kind_of((dir_ / "junk.db").string(), HistoryStore::Open::Create), ErrorKind::BadInput);
  EXPECT_EQ(kind_of((dir_ / "missing.db").string(), HistoryStore::Open::Existing),
            ErrorKind::BadInput);
  // A directory named as the database.
  EXPECT_EQ(kind_of(dir_.string(), HistoryStore::Open::Create), ErrorKind::BadInput);
  {
    HistoryStore store(db_, HistoryStore::Open::Create);
    store.Import(ResultsDir("n1", "s1", 1000));
  }
  {
    SqliteDb raw(db_, SqliteDb::Mode::ReadWriteCreate);
    raw.Exec("PRAGMA journal_mode=DELETE");
  }
  // The rollback journal's path taken by a directory: SQLite's first read is "disk I/O error".
  fs::create_directories(db_ + "-journal");
  EXPECT_EQ(kind_of(db_, HistoryStore::Open::Existing), ErrorKind::Host);
}

}  // namespace
}  // namespace storbed
