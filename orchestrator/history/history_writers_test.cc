// Many writers on one history, on both engines: threads and processes importing at once,
// the race on one session settled by the unique constraint, a writer killed mid-import.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <atomic>
#include <chrono>
#include <numeric>
#include <set>
#include <thread>

#include "history/history_engines_for_test.h"
#include "history/history_store.h"
#include "history/writers_for_test.h"

namespace storbed {
namespace {

class HistoryWritersTest : public HistoryEngineTest {};

// Four writers at once, each with its own connection, racing to create the schema, then
// importing three directories of their own and the same three shared ones in their own order:
// every session once, whole.
TEST_P(HistoryWritersTest, ManyWritersAtOnceWriteEachSessionOnce) {
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
TEST_P(HistoryWritersTest, ASessionAnotherWriterCommitsMeanwhileIsAlreadyThere) {
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
TEST_P(HistoryWritersTest, ThreeProcessesImportingAtOnceLoseAndDuplicateNothing) {
  SKIP_UNLESS_ENGINE();
  constexpr int kHosts = 3, kNights = 6;
  std::vector<std::string> shared;
  for (int n = 0; n < kNights; ++n)
    shared.push_back(
        ResultsDir("shared" + std::to_string(n), "shared" + std::to_string(n), n, 1000, 10));
  std::vector<std::vector<std::string>> dirs(kHosts);
  for (int h = 0; h < kHosts; ++h)
    for (int n = 0; n < kNights; ++n) {
      const std::string name = "host" + std::to_string(h) + "-night" + std::to_string(n);
      dirs[h].push_back(ResultsDir(name, name, n, 1000 + 100 * h, 10));
      dirs[h].push_back(shared[(n + h) % kNights]);
    }
  EXPECT_EQ(ImportInWriterProcesses(spec_, dirs), 0) << "a writer failed";
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
TEST_P(HistoryWritersTest, AWriterKilledMidImportLeavesNoHalfSession) {
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

INSTANTIATE_TEST_SUITE_P(Engines, HistoryWritersTest,
                         ::testing::Values(HistoryEngine::Sqlite, HistoryEngine::Postgres),
                         EngineName);

}  // namespace
}  // namespace storbed
