// The nightly history in SQLite: each imported results directory is a session (one
// `storbed run`, a "night") with its manifest and fingerprint class, and each of its runs
// with its cell, its whole record and the metrics `storbed compare` judges. A session goes
// in with one transaction, so a run killed mid-import leaves no half session; WAL and a
// busy timeout let two runs import at once.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "history/sqlite_db.h"
#include "results/run_record.h"

namespace storbed {

// The schema this storbed writes (PRAGMA user_version); older databases are migrated.
inline constexpr int kHistorySchemaVersion = 1;

struct HistorySession {
  int64_t id = 0;
  std::string session;      // manifest "session", unique per run
  std::string results_dir;  // as imported
  std::string scenario;     // scenario name
  std::string scenario_hash;
  std::string revision;     // storbed git revision of the run
  std::string host;
  std::string started_at;   // UTC, ISO 8601: sorts as text
  std::string fingerprint_class;
  nlohmann::json manifest;
};

struct ImportOutcome {
  HistorySession session;
  size_t runs = 0;
  bool already_there = false;  // the session was imported before: nothing written
};

// One run's value of one metric, with its session.
struct HistoryPoint {
  int64_t session_id = 0;
  std::string cell, metric;
  double value = 0;
};

class HistoryStore {
 public:
  // Existing: the file must be there (gate, history show); Create: made when missing
  // (import). Either way it is opened read-write and migrated.
  enum class Open { Existing, Create };
  // Opens `path` as `open` says. Throws HistoryError: no such file (Existing), not a
  // database, a schema newer than this storbed.
  HistoryStore(const std::string& path, Open open);

  // Appends `results_dir` (results.json + manifest.json) as one session. Throws
  // HistoryError (or std::runtime_error from the results reader) with nothing written.
  ImportOutcome Import(const std::string& results_dir);

  // Sessions in start order, of one scenario ("" = all), started at or after `since`.
  std::vector<HistorySession> Sessions(const std::string& scenario = "",
                                       const std::string& since = "");
  // The session whose manifest "session" is `session`, if imported.
  std::optional<HistorySession> FindSession(const std::string& session);
  // A session's run records, in run order.
  std::vector<RunRecord> Records(int64_t session_id);
  // Every measured, successful run's `metric` of the given sessions.
  std::vector<HistoryPoint> Points(const std::vector<int64_t>& session_ids,
                                   const std::string& metric);
  // Every metric name the history holds values of, sorted.
  std::vector<std::string> MetricNames();
  int SchemaVersion();
  const std::string& path() const { return db_.path(); }

 private:
  void Migrate();
  SqliteDb db_;
};

// The class of a manifest's environment: a hash over every gating item (the host, CPU,
// QEMU, backing device, accelerator, guest kernels) less what moves by design between
// nights (load, storbed's revision). Two sessions of one class are comparable.
std::string FingerprintClass(const nlohmann::json& manifest);

}  // namespace storbed
