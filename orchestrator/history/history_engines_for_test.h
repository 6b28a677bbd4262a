// Test support: the history tests' one shared body over every engine. A test of
// HistoryEngineTest runs once on an SQLite file and once on a database of the private
// PostgreSQL cluster (pg_cluster_for_test.h); the PostgreSQL run skips, with the reason, only
// where no cluster can be started.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "history/history_store.h"
#include "history/pg_cluster_for_test.h"
#include "history/results_dir_for_test.h"

namespace storbed {

enum class HistoryEngine { Sqlite, Postgres };

inline std::string EngineName(const ::testing::TestParamInfo<HistoryEngine>& info) {
  return info.param == HistoryEngine::Sqlite ? "Sqlite" : "Postgres";
}

class HistoryEngineTest : public ::testing::TestWithParam<HistoryEngine> {
 protected:
  void SetUp() override {
    const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string name = std::string(test->test_suite_name()) + "-" + test->name();
    for (char& c : name)
      if (c == '/') c = '-';
    dir_ = std::filesystem::temp_directory_path() /
           ("storbed-history-" + std::to_string(::getpid()) + "-" + name);
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    spec_ = Spec("history");
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // A new, empty history of this test's engine: an SQLite file or a PostgreSQL database.
  std::string Spec(const std::string& name) {
    if (GetParam() == HistoryEngine::Sqlite) return (dir_ / (name + ".db")).string();
    std::string why;
    cluster_ = PgTestCluster::Get(&why);
    if (!cluster_) {
      skipped_ = "no PostgreSQL test cluster: " + why;
      return "";
    }
    return cluster_->Uri(cluster_->NewDatabase(name));
  }
  // Call first in a test body: skips when the engine is not available here.
  bool Skipped() const { return !skipped_.empty(); }

  // A results directory of `runs` repeats of one bare-metal cell at `iops`, session `session`
  // started at `hour` o'clock.
  std::string ResultsDir(const std::string& name, const std::string& session, int hour, double iops,
                         int runs = 3) {
    const std::filesystem::path dir = dir_ / name;
    WriteFakeResults(dir, {.session = session,
                           .started_at = "2026-12-01T" + std::string(hour < 10 ? "0" : "") +
                                         std::to_string(hour) + ":00:00Z",
                           .iops = iops,
                           .runs = runs,
                           .load_avg1 = "0.3"});
    return dir.string();
  }

  // What a refused open must leave as it was: the version, the tables and their rows.
  std::string Snapshot(const std::string& spec) {
    auto raw = OpenHistoryDb(spec, HistoryOpen::Existing);
    std::string out = "version " + std::to_string(raw->SchemaVersion()) + ", tables " +
                      std::to_string(raw->TableCount());
    if (raw->SchemaVersion() > 0)
      for (const char* table : {"sessions", "runs", "metrics"}) {
        auto q = raw->Prepare(std::string("SELECT count(*) FROM ") + table);
        q->Step();
        out += std::string(", ") + table + " " + std::to_string(q->Int(0));
      }
    return out;
  }

  std::filesystem::path dir_;
  std::string spec_, skipped_;
  PgTestCluster* cluster_ = nullptr;
};

#define SKIP_UNLESS_ENGINE() \
  if (Skipped()) GTEST_SKIP() << skipped_

}  // namespace storbed
