#include "history/history_migrate.h"

#include <gtest/gtest.h>

#include <sstream>

#include "history/history_engines_for_test.h"

namespace storbed {
namespace {

class HistoryMigrateTest : public HistoryEngineTest {
 protected:
  // An SQLite history of `nights` sessions of 4 runs each.
  std::string SqliteHistory(int nights) {
    const std::string file = (dir_ / "host.sqlite").string();
    HistoryStore store(file, HistoryStore::Open::Create);
    for (int n = 1; n <= nights; ++n)
      store.Import(
          ResultsDir("n" + std::to_string(n), "night" + std::to_string(n), n, 1000 + 10.5 * n, 4));
    return file;
  }
};

TEST_P(HistoryMigrateTest, EverySessionIsCopiedWholeAndAgainAddsNothing) {
  SKIP_UNLESS_ENGINE();
  HistoryStore from(SqliteHistory(20), HistoryStore::Open::Existing);
  HistoryStore to(spec_, HistoryStore::Open::Create);
  std::stringstream log;
  const MigrateOutcome first = MigrateHistory(from, to, log);
  EXPECT_EQ(first.copied, 20u);
  EXPECT_EQ(first.already_there, 0u);
  EXPECT_EQ(first.from, (MigrateCounts{20, 80, first.from.points}));
  EXPECT_GT(first.from.points, 80u);
  EXPECT_EQ(first.to, first.from);
  EXPECT_NE(log.str().find("every session's SHA-256 over its rows equal in both"),
            std::string::npos)
      << log.str();
  // What the gate and history read back is the same on both sides.
  const auto a = from.Sessions(), b = to.Sessions();
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].session, b[i].session);
    EXPECT_EQ(a[i].manifest, b[i].manifest);
    EXPECT_EQ(nlohmann::json(from.Records(a[i].id)), nlohmann::json(to.Records(b[i].id)));
    for (const std::string& metric : from.MetricNames()) {
      const auto pa = from.Points({a[i].id}, metric), pb = to.Points({b[i].id}, metric);
      ASSERT_EQ(pa.size(), pb.size()) << metric;
      for (size_t j = 0; j < pa.size(); ++j) EXPECT_EQ(pa[j].value, pb[j].value) << metric;
    }
  }
  const MigrateOutcome again = MigrateHistory(from, to, log);
  EXPECT_EQ(again.copied, 0u);
  EXPECT_EQ(again.already_there, 20u);
  EXPECT_EQ(to.Sessions().size(), 20u);
}

// The check reads the target back: a copy whose value differs is named, not passed.
TEST_P(HistoryMigrateTest, ACopyThatDiffersIsNamed) {
  SKIP_UNLESS_ENGINE();
  HistoryStore from(SqliteHistory(3), HistoryStore::Open::Existing);
  HistoryStore to(spec_, HistoryStore::Open::Create);
  std::stringstream log;
  MigrateHistory(from, to, log);
  to.db().Exec(
      "UPDATE metrics SET value = value + 1 WHERE name = 'iops' AND run = (SELECT min(id) FROM "
      "runs WHERE session_id = (SELECT id FROM sessions WHERE session = 'night2'))");
  try {
    MigrateHistory(from, to, log);
    FAIL() << "a changed copy passed";
  } catch (const HistoryError& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Host);
    EXPECT_NE(std::string(e.what()).find("sessions whose rows differ: night2"), std::string::npos)
        << e.what();
  }
}

TEST(SessionDigestTest, EveryStoredFieldCountsButNotTheIds) {
  SessionRows rows;
  rows.session.session = "s";
  rows.session.manifest_text = "{}";
  rows.runs.push_back({"001", "bare-metal r", "ok", "{}", {{"iops", 1000.5}, {"p50_us", 80}}});
  const std::string digest = SessionDigest(rows);
  EXPECT_EQ(digest.size(), 64u);
  SessionRows other = rows;
  other.session.id = 7;
  EXPECT_EQ(SessionDigest(other), digest);
  std::swap(other.runs[0].metrics[0], other.runs[0].metrics[1]);  // the order read back
  EXPECT_EQ(SessionDigest(other), digest);
  other.runs[0].metrics[1].second = 1000.5000000001;
  EXPECT_NE(SessionDigest(other), digest);
  other = rows;
  other.session.host = "b";
  EXPECT_NE(SessionDigest(other), digest);
}

INSTANTIATE_TEST_SUITE_P(Targets, HistoryMigrateTest,
                         ::testing::Values(HistoryEngine::Sqlite, HistoryEngine::Postgres),
                         EngineName);

}  // namespace
}  // namespace storbed
