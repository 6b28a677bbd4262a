#include "history/history_store.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "history/history_engines_for_test.h"
#include "history/sqlite_db.h"

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

TEST_P(HistoryEngineTest, ASessionGoesInWholeOnceAndComesBackAsRecordsAndPoints) {
  SKIP_UNLESS_ENGINE();
  HistoryStore store(spec_, HistoryStore::Open::Create);
  EXPECT_EQ(store.SchemaVersion(), kHistorySchemaVersion);
  const ImportOutcome first = store.Import(ResultsDir("n1", "s1", 1, 1000));
  EXPECT_FALSE(first.already_there);
  EXPECT_EQ(first.runs, 3u);
  EXPECT_EQ(first.session.scenario, "s");
  EXPECT_EQ(first.session.revision, "abc");
  const ImportOutcome again = store.Import((dir_ / "n1").string());
  EXPECT_TRUE(again.already_there);
  EXPECT_EQ(again.session.id, first.session.id);
  store.Import(ResultsDir("n2", "s2", 2, 2000));
  const auto sessions = store.Sessions("s");
  ASSERT_EQ(sessions.size(), 2u);
  EXPECT_EQ(sessions[0].session, "s1");
  EXPECT_EQ(store.Sessions("s", "2026-12-01T02").size(), 1u);
  EXPECT_EQ(store.Sessions("other").size(), 0u);
  const auto records = store.Records(sessions[1].id);
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(records[0].result->iops, 2001);
  const auto points = store.Points({sessions[0].id, sessions[1].id}, "iops");
  ASSERT_EQ(points.size(), 6u);
  EXPECT_EQ(points[0].cell, "bare-metal r");
  EXPECT_EQ(points[5].value, 2003);
  const auto names = store.MetricNames();
  EXPECT_NE(std::find(names.begin(), names.end(), "p99_us"), names.end());
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
}

// Start times sort byte by byte in both engines: a PostgreSQL database in a locale whose
// collation skips punctuation would otherwise order "2026-12-01T10" among the 1 o'clocks.
TEST_P(HistoryEngineTest, SessionsSortByStartTimeAsText) {
  SKIP_UNLESS_ENGINE();
  HistoryStore store(spec_, HistoryStore::Open::Create);
  for (int hour : {10, 1, 2, 21})
    store.Import(ResultsDir("n" + std::to_string(hour), "s" + std::to_string(hour), hour, 1000));
  std::vector<std::string> order;
  for (const auto& s : store.Sessions()) order.push_back(s.session);
  EXPECT_EQ(order, (std::vector<std::string>{"s1", "s2", "s10", "s21"}));
}

TEST_P(HistoryEngineTest, ANewerSchemaIsRefusedAndNothingChanged) {
  SKIP_UNLESS_ENGINE();
  { HistoryStore(spec_, HistoryStore::Open::Create).Import(ResultsDir("n1", "s1", 1, 1000)); }
  OpenHistoryDb(spec_, HistoryOpen::Existing)->SetSchemaVersion(99);
  const std::string before = Snapshot(spec_);
  try {
    HistoryStore store(spec_, HistoryStore::Open::Create);
    FAIL() << "opened a schema 99 database";
  } catch (const HistoryError& e) {
    EXPECT_EQ(e.kind(), ErrorKind::BadInput);
    EXPECT_NE(std::string(e.what()).find("history schema version 99 is newer than this storbed"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(Snapshot(spec_), before);
}

TEST_P(HistoryEngineTest, ADatabaseWithOtherTablesIsRefusedUntouched) {
  SKIP_UNLESS_ENGINE();
  OpenHistoryDb(spec_, HistoryOpen::Create)->Exec("CREATE TABLE t (x INTEGER)");
  const std::string before = Snapshot(spec_);
  try {
    HistoryStore store(spec_, HistoryStore::Open::Create);
    FAIL();
  } catch (const HistoryError& e) {
    EXPECT_EQ(e.kind(), ErrorKind::BadInput);
    EXPECT_NE(std::string(e.what()).find("not a storbed history"), std::string::npos) << e.what();
  }
  EXPECT_EQ(Snapshot(spec_), before);
  EXPECT_EQ(before, "version 0, tables 1");
}

INSTANTIATE_TEST_SUITE_P(Engines, HistoryEngineTest,
                         ::testing::Values(HistoryEngine::Sqlite, HistoryEngine::Postgres),
                         EngineName);

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

TEST_P(HistoryEngineTest, AReaderOfAnEmptyDatabaseIsToldAndWritesNothing) {
  SKIP_UNLESS_ENGINE();
  OpenHistoryDb(spec_, HistoryOpen::Create);  // an empty file, or the server's new database
  try {
    HistoryStore store(spec_, HistoryStore::Open::Existing);
    FAIL() << "a reader made the schema";
  } catch (const HistoryError& e) {
    EXPECT_EQ(e.kind(), ErrorKind::BadInput);
    EXPECT_NE(std::string(e.what()).find("holds no storbed history yet"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(Snapshot(spec_), "version 0, tables 0");
}

// The migration is written once in dialect words; SQLite's expansion must stay the schema
// that shipped (INTEGER PRIMARY KEY is the rowid alias: BIGINT PRIMARY KEY would not be).
TEST_F(HistoryStoreTest, SqliteGetsTheSchemaThatShipped) {
  { HistoryStore store(db_, HistoryStore::Open::Create); }
  SqliteDb raw(db_, SqliteDb::Mode::ReadWriteCreate);
  auto q = raw.Prepare("SELECT sql FROM sqlite_master WHERE name = 'runs'");
  ASSERT_TRUE(q->Step());
  EXPECT_EQ(q->Text(0),
            "CREATE TABLE runs (\n  id INTEGER PRIMARY KEY,\n  session_id INTEGER NOT NULL "
            "REFERENCES sessions(id),\n  run_id TEXT NOT NULL,\n  cell TEXT NOT NULL,\n  status "
            "TEXT NOT NULL,\n  record TEXT NOT NULL,\n  UNIQUE (session_id, run_id))");
  auto m = raw.Prepare("SELECT sql FROM sqlite_master WHERE name = 'metrics'");
  ASSERT_TRUE(m->Step());
  EXPECT_NE(m->Text(0).find("value REAL NOT NULL"), std::string::npos) << m->Text(0);
}

// A database whose connection breaks on every statement, counting the reconnects.
class BreakingDb : public HistoryDb {
 public:
  void Exec(const std::string&) override { Break(); }
  std::unique_ptr<HistoryStatement> Prepare(const std::string&) override { Break(); }
  void Begin() override { Break(); }
  void Commit() override { Break(); }
  void Rollback() override {}
  void LockSchema() override {}
  void UnlockSchema() override {}
  int SchemaVersion() override { return kHistorySchemaVersion; }
  void SetSchemaVersion(int) override { Break(); }
  int64_t TableCount() override { return 3; }
  void PrepareForWrites() override {}
  void Reconnect() override { ++reconnects; }
  std::string Dialect(const std::string& sql) const override { return sql; }
  const std::string& name() const override { return name_; }
  int reconnects = 0;

 private:
  [[noreturn]] void Break() { throw HistoryConnectionLost("server closed the connection"); }
  std::string name_ = "postgresql://lab/history";
};

TEST_F(HistoryStoreTest, AConnectionThatKeepsBreakingIsNamedAfterThreeWrites) {
  auto db = std::make_unique<BreakingDb>();
  BreakingDb* raw = db.get();
  HistoryStore store(std::move(db));
  try {
    store.Import(ResultsDir("n1", "s1", 1000));
    FAIL() << "an import through a broken connection succeeded";
  } catch (const HistoryError& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Host);
    EXPECT_NE(std::string(e.what()).find("postgresql://lab/history: the connection broke 3 times "
                                         "while writing session s1; none of it was written"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(raw->reconnects, 2);  // between the three tries, not after the last
}

// A real SQLite history whose first commit lands and then reports the connection lost: the
// reply to COMMIT never came back.
class LostCommitReplyDb : public SqliteDb {
 public:
  using SqliteDb::SqliteDb;
  void Commit() override {
    SqliteDb::Commit();
    if (commits_++ == 0) throw HistoryConnectionLost("server closed the connection");
  }

 private:
  int commits_ = 0;
};

// Regression (issue 37's note): the retry found the session its own commit had written and
// the import said "already there; nothing added".
TEST_F(HistoryStoreTest, ACommitWhoseReplyWasLostIsFoundOnTheRetryAndSaidSo) {
  { HistoryStore(db_, HistoryStore::Open::Create); }  // schema first: its commit is not lost
  HistoryStore store(std::make_unique<LostCommitReplyDb>(db_, SqliteDb::Mode::ReadWriteCreate));
  const ImportOutcome o = store.Import(ResultsDir("n1", "s1", 1000));
  EXPECT_TRUE(o.already_there);
  EXPECT_TRUE(o.found_after_break);
  EXPECT_EQ(store.Sessions().size(), 1u);
  const ImportOutcome again = store.Import(ResultsDir("n1", "s1", 1000));
  EXPECT_TRUE(again.already_there);
  EXPECT_FALSE(again.found_after_break);  // there at the first try: imported before
}

// A real SQLite history whose connection breaks on the first `breaks` statements after
// `armed` is set, counting the reconnects.
class FlakyReadsDb : public SqliteDb {
 public:
  using SqliteDb::SqliteDb;
  std::unique_ptr<HistoryStatement> Prepare(const std::string& sql) override {
    if (armed && breaks > 0) {
      --breaks;
      throw HistoryConnectionLost("server closed the connection unexpectedly");
    }
    return SqliteDb::Prepare(sql);
  }
  void Reconnect() override { ++reconnects; }
  bool armed = false;
  int breaks = 0, reconnects = 0;
};

// Issue 37's note: a dropped connection failed `history`, `gate` and `report --history` at
// once; a read is now repeated on a new connection, and named after the third break.
TEST_F(HistoryStoreTest, AReadWhoseConnectionBrokeIsReadAgainAndTheThirdBreakIsNamed) {
  { HistoryStore(db_, HistoryStore::Open::Create).Import(ResultsDir("n1", "s1", 1000)); }
  auto db = std::make_unique<FlakyReadsDb>(db_, SqliteDb::Mode::ReadWriteCreate);
  FlakyReadsDb* raw = db.get();
  HistoryStore store(std::move(db));
  const size_t runs = store.Records(store.Sessions().at(0).id).size();
  raw->armed = true;
  raw->breaks = 2;
  const auto sessions = store.Sessions();
  ASSERT_EQ(sessions.size(), 1u);
  EXPECT_EQ(raw->reconnects, 2);
  raw->breaks = 3;
  try {
    store.Records(sessions[0].id);
    FAIL() << "a read through a connection that broke three times succeeded";
  } catch (const HistoryError& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Host);
    EXPECT_EQ(std::string(e.what()), db_ +
                                         ": the connection broke 3 times while reading the runs "
                                         "of session " +
                                         std::to_string(sessions[0].id) +
                                         ": server closed the connection unexpectedly");
  }
  EXPECT_EQ(raw->reconnects, 4);                          // between the tries, not after the last
  EXPECT_EQ(store.Records(sessions[0].id).size(), runs);  // the connection back: read whole
}

// Regression: three processes creating one new history at once, one failed with "database
// is locked": switching to WAL while another connection writes is refused at once, not
// after the busy timeout.
TEST(SqliteDbTest, TheSwitchToWalWaitsForAnotherConnectionsWrite) {
  const std::string path =
      (fs::temp_directory_path() / ("storbed-wal-" + std::to_string(::getpid()) + ".db")).string();
  fs::remove(path);
  SqliteDb writer(path, SqliteDb::Mode::ReadWriteCreate);
  SqliteDb other(path, SqliteDb::Mode::ReadWriteCreate);
  writer.Exec("BEGIN IMMEDIATE; CREATE TABLE t (x INTEGER)");
  std::thread commit([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    writer.Exec("COMMIT");
  });
  EXPECT_NO_THROW(other.PrepareForWrites());
  commit.join();
  auto mode = other.Prepare("PRAGMA journal_mode");
  ASSERT_TRUE(mode->Step());
  EXPECT_EQ(mode->Text(0), "wal");
  fs::remove(path);
  fs::remove(path + "-wal");
  fs::remove(path + "-shm");
}

// SQLite numbers $N by first appearance: a statement naming $2 before $1 would bind each
// value in the other's place; it is refused instead.
TEST(SqliteDbTest, ParametersOutOfOrderAreRefused) {
  const std::string path =
      (fs::temp_directory_path() / ("storbed-params-" + std::to_string(::getpid()) + ".db"))
          .string();
  {
    SqliteDb db(path, SqliteDb::Mode::ReadWriteCreate);
    auto q = db.Prepare("SELECT $1 || '-' || $2 || '-' || $1");
    q->Bind(1, std::string("a")).Bind(2, std::string("b"));
    ASSERT_TRUE(q->Step());
    EXPECT_EQ(q->Text(0), "a-b-a");
    try {
      db.Prepare("SELECT $2, $1");
      FAIL() << "parameters out of order were taken";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::Internal);
      EXPECT_NE(std::string(e.what()).find("parameter 1 is $2, not $1"), std::string::npos)
          << e.what();
    }
  }
  fs::remove(path);
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
  const std::string other_bytes = Bytes(other);
  try {
    HistoryStore store(other, HistoryStore::Open::Create);
    FAIL();
  } catch (const HistoryError& e) {
    EXPECT_NE(std::string(e.what()).find("not a storbed history"), std::string::npos) << e.what();
  }
  // Issue 38: its journal mode was switched to WAL before the refusal; now not a byte moves
  // and no -wal or -shm file appears beside it.
  EXPECT_EQ(Bytes(other), other_bytes);
  EXPECT_FALSE(fs::exists(other + "-wal"));
  EXPECT_FALSE(fs::exists(other + "-shm"));
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
