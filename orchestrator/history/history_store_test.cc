#include "history/history_store.h"

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <atomic>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <set>
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

// Four writers at once, each with its own connection, racing to create the schema, then
// importing three directories of their own and the same three shared ones in their own order:
// every session once, whole.
TEST_P(HistoryEngineTest, ManyWritersAtOnceWriteEachSessionOnce) {
  SKIP_UNLESS_ENGINE();
  constexpr int kWriters = 4;
  std::vector<std::string> shared;
  for (int i = 0; i < 3; ++i)
    shared.push_back(
        ResultsDir("shared" + std::to_string(i), "shared" + std::to_string(i), 1, 1000, 20));
  std::vector<std::vector<std::string>> mine(kWriters);
  for (int w = 0; w < kWriters; ++w)
    for (int i = 0; i < 3; ++i) {
      const std::string name = "w" + std::to_string(w) + "-" + std::to_string(i);
      mine[w].push_back(ResultsDir(name, name, 2, 1000, 20));
    }
  std::vector<int> added(kWriters, 0);
  std::vector<std::string> errors(kWriters);
  std::vector<std::thread> writers;
  for (int w = 0; w < kWriters; ++w)
    writers.emplace_back([&, w] {
      try {
        HistoryStore store(spec_, HistoryStore::Open::Create);
        std::vector<std::string> dirs = mine[w];
        for (int i = 0; i < 3; ++i) dirs.insert(dirs.begin() + 2 * i, shared[(w + i) % 3]);
        for (const std::string& d : dirs) added[w] += !store.Import(d).already_there;
      } catch (const std::exception& e) {
        errors[w] = e.what();
      }
    });
  for (auto& t : writers) t.join();
  for (const auto& e : errors) EXPECT_EQ(e, "");
  HistoryStore store(spec_, HistoryStore::Open::Existing);
  const auto sessions = store.Sessions();
  EXPECT_EQ(sessions.size(), size_t(kWriters * 3 + 3));
  EXPECT_EQ(std::accumulate(added.begin(), added.end(), 0), kWriters * 3 + 3);
  std::set<std::string> names;
  for (const auto& s : sessions) {
    names.insert(s.session);
    EXPECT_EQ(store.Records(s.id).size(), 20u) << s.session;
    EXPECT_EQ(store.Points({s.id}, "iops").size(), 20u) << s.session;
  }
  EXPECT_EQ(names.size(), sessions.size());
}

// The race the unique constraint settles: another writer's session lands between this
// import's look for it and its insert. The import waits on the other's open transaction,
// meets the constraint when it commits, and reports the session as there already.
TEST_P(HistoryEngineTest, ASessionAnotherWriterCommitsMeanwhileIsAlreadyThere) {
  SKIP_UNLESS_ENGINE();
  HistoryStore importer(spec_, HistoryStore::Open::Create);
  HistoryStore other(spec_, HistoryStore::Open::Existing);
  const std::string dir = ResultsDir("n1", "s1", 1, 1000);
  other.db().Begin();
  other.db()
      .Prepare(
          "INSERT INTO sessions (session, results_dir, scenario, scenario_hash, revision, "
          "host, started_at, fingerprint_class, manifest) VALUES ($1, 'elsewhere', 's', "
          "'', '', 'b', '', '', '{}')")
      ->Bind(1, std::string("s1"))
      .Run();
  std::atomic<bool> done = false;
  ImportOutcome outcome;
  std::string error;
  std::thread writer([&] {
    try {
      outcome = importer.Import(dir);
    } catch (const std::exception& e) {
      error = e.what();
    }
    done = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  const bool waited = !done;
  other.db().Commit();
  writer.join();
  EXPECT_TRUE(waited) << "the import did not wait for the other writer";
  EXPECT_EQ(error, "");
  EXPECT_TRUE(outcome.already_there);
  EXPECT_EQ(outcome.session.results_dir, "elsewhere");
  ASSERT_EQ(importer.Sessions().size(), 1u);
  EXPECT_EQ(importer.Records(importer.Sessions()[0].id).size(), 0u);  // the other's, untouched
}

// Three processes (three hosts) importing at once, each its own nights and the same shared
// ones, one session a night each: every session once, with all of its runs.
TEST_P(HistoryEngineTest, ThreeProcessesImportingAtOnceLoseAndDuplicateNothing) {
  SKIP_UNLESS_ENGINE();
  constexpr int kHosts = 3, kNights = 6;
  std::vector<std::string> shared;
  for (int n = 0; n < kNights; ++n)
    shared.push_back(
        ResultsDir("shared" + std::to_string(n), "shared" + std::to_string(n), n, 1000, 10));
  std::vector<pid_t> children;
  for (int h = 0; h < kHosts; ++h) {
    std::vector<std::string> dirs;
    for (int n = 0; n < kNights; ++n) {
      const std::string name = "host" + std::to_string(h) + "-night" + std::to_string(n);
      dirs.push_back(ResultsDir(name, name, n, 1000 + 100 * h, 10));
      dirs.push_back(shared[(n + h) % kNights]);
    }
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      try {  // _exit, never exit: the parent's static cluster must not be stopped by a child
        HistoryStore store(spec_, HistoryStore::Open::Create);
        for (const std::string& d : dirs) store.Import(d);
      } catch (...) {
        ::_exit(1);
      }
      ::_exit(0);
    }
    children.push_back(child);
  }
  for (const pid_t child : children) {
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "a writer failed: " << status;
  }
  HistoryStore store(spec_, HistoryStore::Open::Existing);
  const auto sessions = store.Sessions();
  EXPECT_EQ(sessions.size(), size_t(kHosts * kNights + kNights));
  std::set<std::string> names;
  for (const auto& s : sessions) {
    names.insert(s.session);
    EXPECT_EQ(store.Records(s.id).size(), 10u) << s.session;
  }
  EXPECT_EQ(names.size(), sessions.size());
  // Importing everything again adds nothing.
  for (const auto& s : sessions) EXPECT_TRUE(store.Import(s.results_dir).already_there);
  EXPECT_EQ(store.Sessions().size(), sessions.size());
}

// A writer killed (SIGKILL) in the middle of big imports: the sessions it committed are whole,
// the one it was writing is not there at all.
TEST_P(HistoryEngineTest, AWriterKilledMidImportLeavesNoHalfSession) {
  SKIP_UNLESS_ENGINE();
  constexpr int kRuns = 1500, kSessions = 8;
  std::vector<std::string> dirs;
  for (int i = 0; i < kSessions; ++i)
    dirs.push_back(
        ResultsDir("big" + std::to_string(i), "big" + std::to_string(i), 1, 1000, kRuns));
  { HistoryStore(spec_, HistoryStore::Open::Create); }
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // _exit, never exit: the parent's static cluster must not be stopped by the child.
    try {
      HistoryStore store(spec_, HistoryStore::Open::Existing);
      for (const std::string& d : dirs) store.Import(d);
    } catch (...) {
      ::_exit(1);
    }
    ::_exit(0);
  }
  HistoryStore store(spec_, HistoryStore::Open::Existing);
  for (int i = 0; i < 6000 && store.Sessions().empty(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  std::this_thread::sleep_for(std::chrono::milliseconds(150));
  ::kill(child, SIGKILL);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status)) << "the writer finished before the kill: make it bigger";
  const auto sessions = store.Sessions();
  EXPECT_GE(sessions.size(), 1u);
  EXPECT_LT(sessions.size(), size_t(kSessions));
  for (const auto& s : sessions) {
    EXPECT_EQ(store.Records(s.id).size(), size_t(kRuns)) << s.session;
    EXPECT_EQ(store.Points({s.id}, "iops").size(), size_t(kRuns)) << s.session;
  }
  auto orphans = store.db().Prepare(
      "SELECT count(*) FROM runs WHERE session_id NOT IN (SELECT id FROM sessions)");
  orphans->Step();
  EXPECT_EQ(orphans->Int(0), 0);
  // What was cut off goes in whole when imported again.
  for (const std::string& d : dirs) store.Import(d);
  EXPECT_EQ(store.Sessions().size(), size_t(kSessions));
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
    EXPECT_THROW(db.Prepare("SELECT $2, $1"), Error);
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
