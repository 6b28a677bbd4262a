#include "history/history_store.h"

#include <filesystem>
#include <optional>

#include "file_read.h"
#include "images/file_digest.h"
#include "reports/cells.h"
#include "reports/compare_environment.h"
#include "reports/compare_metrics.h"
#include "results/results_dir.h"
#include "strict_json.h"

namespace storbed {
namespace {

// Migration N takes a database from user_version N to N + 1. Never edit one that shipped:
// add the next.
const char* const kMigrations[] = {
    R"sql(
CREATE TABLE sessions (
  id INTEGER PRIMARY KEY,
  session TEXT NOT NULL UNIQUE,
  results_dir TEXT NOT NULL,
  scenario TEXT NOT NULL,
  scenario_hash TEXT NOT NULL,
  revision TEXT NOT NULL,
  host TEXT NOT NULL,
  started_at TEXT NOT NULL,
  fingerprint_class TEXT NOT NULL,
  manifest TEXT NOT NULL);
CREATE TABLE runs (
  id INTEGER PRIMARY KEY,
  session_id INTEGER NOT NULL REFERENCES sessions(id),
  run_id TEXT NOT NULL,
  cell TEXT NOT NULL,
  status TEXT NOT NULL,
  record TEXT NOT NULL,
  UNIQUE (session_id, run_id));
CREATE TABLE metrics (
  run INTEGER NOT NULL REFERENCES runs(id),
  name TEXT NOT NULL,
  value REAL NOT NULL,
  PRIMARY KEY (run, name));
CREATE INDEX sessions_scenario ON sessions(scenario, started_at);
CREATE INDEX runs_session ON runs(session_id);
)sql",
};
static_assert(std::size(kMigrations) == kHistorySchemaVersion);

nlohmann::json ReadManifest(const std::string& dir) {
  const std::optional<std::string> text = TryReadFile(dir + "/manifest.json");
  if (!text) throw HistoryError(dir + ": not a results directory (no manifest.json)");
  try {
    return ParseJson(*text);
  } catch (const std::exception& e) {
    throw HistoryError(dir + "/manifest.json: " + e.what());
  }
}

HistorySession SessionFrom(const SqliteStatement& row) {
  HistorySession s;
  s.id = row.Int(0);
  s.session = row.Text(1);
  s.results_dir = row.Text(2);
  s.scenario = row.Text(3);
  s.scenario_hash = row.Text(4);
  s.revision = row.Text(5);
  s.host = row.Text(6);
  s.started_at = row.Text(7);
  s.fingerprint_class = row.Text(8);
  s.manifest = ParseJson(row.Text(9));
  return s;
}

constexpr const char* kSessionColumns =
    "id, session, results_dir, scenario, scenario_hash, revision, host, started_at, "
    "fingerprint_class, manifest";

}  // namespace

std::string FingerprintClass(const nlohmann::json& manifest) {
  std::string text;
  for (const auto& [item, value] : EnvironmentItems(manifest)) {
    if (item.rfind("load.", 0) == 0 || item == "storbed.git_revision") continue;
    text += item + "=" + value + "\n";
  }
  return Sha256Hex(text).substr(0, 16);
}

namespace {
const std::string& ExistingUnless(HistoryStore::Open open, const std::string& path) {
  if (open == HistoryStore::Open::Existing && !std::filesystem::exists(path))
    throw HistoryError(path + ": no such history database");
  return path;
}
}  // namespace

HistoryStore::HistoryStore(const std::string& path, Open open)
    : db_(ExistingUnless(open, path), SqliteDb::Mode::ReadWriteCreate) {
  Migrate();
}

std::vector<std::string> HistoryStore::MetricNames() {
  SqliteStatement q(db_, "SELECT DISTINCT name FROM metrics ORDER BY name");
  std::vector<std::string> out;
  while (q.Step()) out.push_back(q.Text(0));
  return out;
}

int HistoryStore::SchemaVersion() {
  SqliteStatement q(db_, "PRAGMA user_version");
  q.Step();
  return int(q.Int(0));
}

void HistoryStore::Migrate() {
  const int version = SchemaVersion();
  if (version > kHistorySchemaVersion)
    throw HistoryError(db_.path() + ": history schema version " + std::to_string(version) +
                       " is newer than this storbed knows (" +
                       std::to_string(kHistorySchemaVersion) +
                       "): use the storbed that wrote it, or a newer one");
  if (version == 0) {
    SqliteStatement tables(db_, "SELECT count(*) FROM sqlite_master");
    tables.Step();
    // Read the version after the tables: a run creating the schema right now commits both.
    if (tables.Int(0) > 0 && SchemaVersion() == 0)
      throw HistoryError(db_.path() + ": an SQLite database that is not a storbed history");
  }
  // WAL only once the file is known to be ours: a refused database stays untouched.
  db_.Exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL");
  if (version == kHistorySchemaVersion) return;
  // Under the write lock, read again: another run may have created the schema meanwhile.
  SqliteTransaction t(db_);
  const int now = SchemaVersion();
  if (now == kHistorySchemaVersion) return;
  for (int v = now; v < kHistorySchemaVersion; ++v) db_.Exec(kMigrations[v]);
  db_.Exec("PRAGMA user_version = " + std::to_string(kHistorySchemaVersion));
  t.Commit();
}

ImportOutcome HistoryStore::Import(const std::string& results_dir) {
  const nlohmann::json manifest = ReadManifest(results_dir);
  const std::vector<RunRecord> records = LoadResults(results_dir);
  if (records.empty()) throw HistoryError(results_dir + "/results.json: no runs");
  ImportOutcome out;
  HistorySession& s = out.session;
  s.session = manifest.value("session", "");
  if (s.session.empty()) s.session = results_dir + "@" + manifest.value("started_at", "");
  if (auto existing = FindSession(s.session)) {
    out.session = *existing;
    out.already_there = true;
    return out;
  }
  const nlohmann::json environment = manifest.value("environment", nlohmann::json::object());
  s.results_dir = std::filesystem::absolute(results_dir).lexically_normal().string();
  s.scenario = manifest.value("scenario", nlohmann::json::object()).value("name", "");
  s.scenario_hash = Sha256Hex(manifest.value("scenario", nlohmann::json::object()).dump());
  s.revision = environment.value("storbed.git_revision", "unknown");
  s.host = manifest.value("host", nlohmann::json::object()).value("hostname", "unknown");
  s.started_at = manifest.value("started_at", "");
  s.fingerprint_class = FingerprintClass(manifest);
  s.manifest = manifest;

  const std::vector<CompareMetric> metrics = CompareMetrics(records);
  SqliteTransaction t(db_);
  SqliteStatement(db_,
                  "INSERT INTO sessions (session, results_dir, scenario, scenario_hash, "
                  "revision, host, started_at, fingerprint_class, manifest) "
                  "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")
      .Bind(1, s.session).Bind(2, s.results_dir).Bind(3, s.scenario).Bind(4, s.scenario_hash)
      .Bind(5, s.revision).Bind(6, s.host).Bind(7, s.started_at).Bind(8, s.fingerprint_class)
      .Bind(9, manifest.dump())
      .Run();
  s.id = db_.LastInsertId();
  for (const RunRecord& r : records) {
    SqliteStatement(db_, "INSERT INTO runs (session_id, run_id, cell, status, record) "
                         "VALUES (?, ?, ?, ?, ?)")
        .Bind(1, s.id).Bind(2, r.run_id).Bind(3, CellOf(r)).Bind(4, ToString(r.status))
        .Bind(5, nlohmann::json(r).dump())
        .Run();
    const int64_t run = db_.LastInsertId();
    if (r.status != RunStatus::Ok || !r.result) continue;
    for (const CompareMetric& m : metrics)
      if (const auto v = m.value(r))
        SqliteStatement(db_, "INSERT INTO metrics (run, name, value) VALUES (?, ?, ?)")
            .Bind(1, run).Bind(2, m.name).Bind(3, *v)
            .Run();
    ++out.runs;
  }
  t.Commit();
  return out;
}

std::vector<HistorySession> HistoryStore::Sessions(const std::string& scenario,
                                                   const std::string& since) {
  SqliteStatement q(db_, std::string("SELECT ") + kSessionColumns +
                             " FROM sessions WHERE (?1 = '' OR scenario = ?1) AND "
                             "started_at >= ?2 ORDER BY started_at, id");
  q.Bind(1, scenario).Bind(2, since);
  std::vector<HistorySession> out;
  while (q.Step()) out.push_back(SessionFrom(q));
  return out;
}

std::optional<HistorySession> HistoryStore::FindSession(const std::string& session) {
  SqliteStatement q(db_, std::string("SELECT ") + kSessionColumns +
                             " FROM sessions WHERE session = ?");
  q.Bind(1, session);
  if (!q.Step()) return std::nullopt;
  return SessionFrom(q);
}

std::vector<RunRecord> HistoryStore::Records(int64_t session_id) {
  SqliteStatement q(db_, "SELECT record FROM runs WHERE session_id = ? ORDER BY id");
  q.Bind(1, session_id);
  std::vector<RunRecord> out;
  while (q.Step()) out.push_back(ParseJson(q.Text(0)).get<RunRecord>());
  return out;
}

std::vector<HistoryPoint> HistoryStore::Points(const std::vector<int64_t>& session_ids,
                                               const std::string& metric) {
  std::vector<HistoryPoint> out;
  for (const int64_t id : session_ids) {
    SqliteStatement q(db_,
                      "SELECT runs.cell, metrics.value FROM runs JOIN metrics ON metrics.run = "
                      "runs.id WHERE runs.session_id = ? AND metrics.name = ? AND "
                      "runs.status = 'ok' ORDER BY runs.id");
    q.Bind(1, id).Bind(2, metric);
    while (q.Step()) out.push_back({id, q.Text(0), metric, q.Real(1).value_or(0)});
  }
  return out;
}

}  // namespace storbed
