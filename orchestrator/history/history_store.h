// The nightly history in SQLite or PostgreSQL (history_db.h): each imported results directory
// is a session (one `storbed run`, a "night") with its manifest and fingerprint class, and
// each of its runs with its cell, its whole record and the metrics `storbed compare` judges.
// A session goes in with one transaction, so a run killed mid-import leaves no half session;
// many writers may import at once, and a session two of them bring is written once.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "history/history_db.h"
#include "results/run_record.h"

namespace storbed {

// The schema this storbed writes (SQLite's PRAGMA user_version, PostgreSQL's storbed_schema);
// older databases are migrated.
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
  std::string manifest_text;  // as stored: what a copy writes and a digest reads
};

struct ImportOutcome {
  HistorySession session;
  size_t runs = 0;
  bool already_there = false;  // the session was imported before: nothing written
  // With already_there: not there at the first try, there on a retry after the connection
  // broke, so this import's commit landed before the break (or another writer's meanwhile).
  bool found_after_break = false;
};

// One run's value of one metric, with its session.
struct HistoryPoint {
  int64_t session_id = 0;
  std::string cell, metric;
  double value = 0;
};

// One stored run with its metrics: a session's rows as a copy moves them.
struct HistoryRun {
  std::string run_id, cell, status, record;
  std::vector<std::pair<std::string, double>> metrics;  // by name
};

// A whole session as stored, less the database's own ids.
struct SessionRows {
  HistorySession session;
  std::vector<HistoryRun> runs;  // in run order
};

class HistoryStore {
 public:
  // Existing: the database must be there and hold a history (gate, history show, report);
  // Create: an SQLite file is made when missing, the schema when absent (import). Either
  // way an older schema is migrated.
  using Open = HistoryOpen;
  // Opens `spec` (a file, or postgresql://...) as `open` says. Throws HistoryError: no such
  // file (Existing), not a database or not a history, a schema newer than this storbed, a
  // password in the URI, a server that refuses or cannot be reached.
  HistoryStore(const std::string& spec, Open open);
  // Over a database opened already (tests hand in their own engine).
  explicit HistoryStore(std::unique_ptr<HistoryDb> db);

  // Appends `results_dir` (results.json + manifest.json) as one session. Throws
  // HistoryError (or std::runtime_error from the results reader) with nothing written.
  ImportOutcome Import(const std::string& results_dir);
  // Writes `rows` as one session in one transaction, unless its session is there already
  // (then false, `rows.session` the stored one). A connection that breaks is retried;
  // `found_after_break` (if given) says the session was first found on such a retry.
  bool Insert(SessionRows& rows, bool* found_after_break = nullptr);
  // A session's rows, for a copy or a digest.
  SessionRows Rows(int64_t session_id);

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
  // The database as the user named it (a path or a URI without secrets).
  const std::string& name() const { return db_->name(); }
  HistoryDb& db() { return *db_; }

 private:
  void Migrate(Open open);
  bool InsertOnce(SessionRows& rows);
  std::optional<HistorySession> FindSessionOnce(const std::string& session);
  // Runs `act(attempt)` (from 1), reconnecting and running it again when the connection
  // broke under it, up to kConnectionAttempts times; then HistoryError (Host) "NAME: the
  // connection broke N times while DOING: why". Only for acts that are safe to repeat: a
  // read, or a write whose transaction died with the connection.
  template <class Act>
  auto WithReconnects(const std::string& doing, Act act) -> decltype(act(1));
  // A read (it changes nothing, so it can always be repeated) through WithReconnects.
  template <class Read>
  auto Reading(const std::string& what, Read read) -> decltype(read());
  std::unique_ptr<HistoryDb> db_;
};

// The class of a manifest's environment: a hash over every gating item (the host, CPU,
// QEMU, backing device, accelerator, guest kernels) less what moves by design between
// nights (load, storbed's revision). Two sessions of one class are comparable.
std::string FingerprintClass(const nlohmann::json& manifest);

}  // namespace storbed
