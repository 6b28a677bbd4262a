// The PostgreSQL engine's own failures against the private test cluster: credentials,
// unreachable servers, wrong names, a read-only role, a dropped connection.
#include "history/postgres_db.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "history/history_engines_for_test.h"
#include "history/history_store.h"

namespace storbed {
namespace {

// The kind and message of what opening (and, if given, importing into) `spec` throws.
std::pair<ErrorKind, std::string> Failure(const std::function<void()>& f) {
  try {
    f();
  } catch (const HistoryError& e) {
    return {e.kind(), e.what()};
  }
  return {ErrorKind::Internal, "no error"};
}

TEST(PostgresDbTest, APasswordInTheUriIsRefusedWithoutRepeatingIt) {
  for (const std::string& uri :
       std::vector<std::string>{"postgresql://lab:s3cret@db.example/history",
                                "postgres://lab@db.example/history?password=s3cret"}) {
    const auto [kind, message] = Failure([&] { HistoryStore(uri, HistoryStore::Open::Existing); });
    EXPECT_EQ(kind, ErrorKind::BadInput) << message;
    EXPECT_NE(message.find("holds a password"), std::string::npos) << message;
    EXPECT_NE(message.find("PGPASSFILE"), std::string::npos) << message;
    EXPECT_EQ(message.find("s3cret"), std::string::npos) << message;
  }
}

TEST(PostgresDbTest, AServerThatCannotBeReachedIsTheHostsAfterThreeAttempts) {
  const auto start = std::chrono::steady_clock::now();
  const auto [kind, message] = Failure([] {
    HistoryStore("postgresql:///history?host=/nonexistent-storbed-socket-dir",
                 HistoryStore::Open::Create);
  });
  EXPECT_EQ(kind, ErrorKind::Host) << message;
  EXPECT_NE(message.find("cannot connect to the history server (3 attempts)"), std::string::npos)
      << message;
  // The pauses between attempts: 0.25 s and 0.5 s.
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(700));
}

TEST(PostgresDbTest, WhoseAFailedConnectionIsComesFromTheServersAnswer) {
  EXPECT_EQ(ConnectFailureKind("FATAL:  database \"nope\" does not exist"), ErrorKind::BadInput);
  EXPECT_EQ(ConnectFailureKind("FATAL:  role \"nobody\" does not exist"), ErrorKind::BadInput);
  EXPECT_EQ(ConnectFailureKind("FATAL:  password authentication failed for user \"u\""),
            ErrorKind::BadInput);
  EXPECT_EQ(ConnectFailureKind("connection to server on socket \"/x/.s.PGSQL.5432\" failed: No "
                               "such file or directory"),
            ErrorKind::Host);
  EXPECT_EQ(ConnectFailureKind("FATAL:  the database system is starting up"), ErrorKind::Host);
}

class PostgresServerTest : public HistoryEngineTest {};

TEST_P(PostgresServerTest, AWrongDatabaseOrRoleIsBadInputAndNothingMade) {
  SKIP_UNLESS_ENGINE();
  for (const std::string& uri :
       {cluster_->Uri("no_such_db"), cluster_->Uri("postgres", "nobody")}) {
    const auto [kind, message] = Failure([&] { HistoryStore(uri, HistoryStore::Open::Create); });
    EXPECT_EQ(kind, ErrorKind::BadInput) << message;
    EXPECT_NE(message.find("does not exist"), std::string::npos) << message;
  }
}

// A role granted SELECT only reads the history (gate, history, report) but cannot import:
// a clear message, nothing written.
TEST_P(PostgresServerTest, AReadOnlyRoleReadsButCannotWrite) {
  SKIP_UNLESS_ENGINE();
  HistoryStore(spec_, HistoryStore::Open::Create).Import(ResultsDir("n1", "s1", 1, 1000));
  const std::string db = spec_.substr(std::string("postgresql:///").size(),
                                      spec_.find('?') - std::string("postgresql:///").size());
  cluster_->Admin(
      "DO $$ BEGIN CREATE ROLE reader LOGIN; EXCEPTION WHEN duplicate_object THEN "
      "NULL; END $$");
  cluster_->Admin("GRANT SELECT ON ALL TABLES IN SCHEMA public TO reader", db);
  const std::string reader = cluster_->Uri(db, "reader");
  const std::string before = Snapshot(spec_);
  HistoryStore store(reader, HistoryStore::Open::Existing);
  EXPECT_EQ(store.Sessions().size(), 1u);
  const auto [kind, message] = Failure([&] { store.Import(ResultsDir("n2", "s2", 2, 1000)); });
  EXPECT_EQ(kind, ErrorKind::BadInput) << message;
  EXPECT_NE(message.find("permission denied"), std::string::npos) << message;
  EXPECT_NE(message.find("may read this history but not write it"), std::string::npos) << message;
  EXPECT_EQ(Snapshot(spec_), before);
  // On a database without the schema yet, the reader cannot create it either.
  const std::string empty = cluster_->NewDatabase("empty_for_reader");
  const auto [kind2, message2] =
      Failure([&] { HistoryStore(cluster_->Uri(empty, "reader"), HistoryStore::Open::Create); });
  EXPECT_EQ(kind2, ErrorKind::BadInput) << message2;
  EXPECT_EQ(Snapshot(cluster_->Uri(empty)), "version 0, tables 0");
}

// The server ends the connection between two imports (a restart, a proxy's idle timeout):
// the next import connects again and lands once.
TEST_P(PostgresServerTest, ADroppedConnectionIsMadeAgain) {
  SKIP_UNLESS_ENGINE();
  HistoryStore store(spec_, HistoryStore::Open::Create);
  store.Import(ResultsDir("n1", "s1", 1, 1000));
  auto pid = store.db().Prepare("SELECT pg_backend_pid()");
  ASSERT_TRUE(pid->Step());
  cluster_->Admin("SELECT pg_terminate_backend(" + pid->Text(0) + ")");
  const ImportOutcome o = store.Import(ResultsDir("n2", "s2", 2, 1000));
  EXPECT_FALSE(o.already_there);
  EXPECT_EQ(store.Sessions().size(), 2u);
}

// The server ends the connection inside an import's transaction (a failover, a restart):
// that transaction is gone with it, and the import connects again and writes the session
// whole, once.
TEST_P(PostgresServerTest, AConnectionDroppedMidImportIsRetriedAndTheSessionLandsOnce) {
  SKIP_UNLESS_ENGINE();
  HistoryStore store(spec_, HistoryStore::Open::Create);
  auto pid = store.db().Prepare("SELECT pg_backend_pid()");
  ASSERT_TRUE(pid->Step());
  const int64_t backend = pid->Int(0);
  pid.reset();
  const std::string dir = ResultsDir("big", "big", 1, 1000, 3000);
  ImportOutcome outcome;
  std::string error;
  std::atomic<bool> done = false;
  std::thread writer([&] {
    try {
      outcome = store.Import(dir);
    } catch (const std::exception& e) {
      error = e.what();
    }
    done = true;
  });
  // Until the writer's transaction has written something (it holds a transaction id).
  auto watcher = OpenHistoryDb(spec_, HistoryOpen::Existing);
  bool writing = false;
  // Reading 3000 records comes first: seconds, a minute under the sanitizers.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::minutes(3);
  while (!writing && !done && std::chrono::steady_clock::now() < deadline) {
    auto q = watcher->Prepare(
        "SELECT count(*) FROM pg_stat_activity WHERE pid = $1 AND backend_xid IS NOT NULL");
    q->Bind(1, backend);
    q->Step();
    writing = q->Int(0) == 1;
    if (!writing) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (writing) cluster_->Admin("SELECT pg_terminate_backend(" + std::to_string(backend) + ")");
  writer.join();
  ASSERT_TRUE(writing) << "the import was never seen writing";
  EXPECT_EQ(error, "");
  EXPECT_FALSE(outcome.already_there);
  const auto sessions = store.Sessions();
  ASSERT_EQ(sessions.size(), 1u);
  EXPECT_EQ(store.Records(sessions[0].id).size(), 3000u);
  EXPECT_EQ(store.Points({sessions[0].id}, "iops").size(), 3000u);
}

INSTANTIATE_TEST_SUITE_P(Server, PostgresServerTest, ::testing::Values(HistoryEngine::Postgres),
                         EngineName);

}  // namespace
}  // namespace storbed
