#include "history/history_store.h"

#include <algorithm>
#include <filesystem>
#include <optional>
#include <tuple>

#include "file_read.h"
#include "images/file_digest.h"
#include "reports/cells.h"
#include "reports/compare_environment.h"
#include "reports/compare_metrics.h"
#include "results/results_dir.h"
#include "strict_json.h"

namespace storbed {
namespace {

// Migration N takes a database from schema version N to N + 1, in each engine's words
// (HistoryDb::Dialect; SQLite's expansion is the text that shipped). Never edit one that
// shipped: add the next.
const char* const kMigrations[] = {
    R"sql(
CREATE TABLE sessions (
  id {id},
  session {text} NOT NULL UNIQUE,
  results_dir {text} NOT NULL,
  scenario {text} NOT NULL,
  scenario_hash {text} NOT NULL,
  revision {text} NOT NULL,
  host {text} NOT NULL,
  started_at {text} NOT NULL,
  fingerprint_class {text} NOT NULL,
  manifest {text} NOT NULL);
CREATE TABLE runs (
  id {id},
  session_id {int} NOT NULL REFERENCES sessions(id),
  run_id {text} NOT NULL,
  cell {text} NOT NULL,
  status {text} NOT NULL,
  record {text} NOT NULL,
  UNIQUE (session_id, run_id));
CREATE TABLE metrics (
  run {int} NOT NULL REFERENCES runs(id),
  name {text} NOT NULL,
  value {real} NOT NULL,
  PRIMARY KEY (run, name));
CREATE INDEX sessions_scenario ON sessions(scenario, started_at);
CREATE INDEX runs_session ON runs(session_id);
)sql",
};
static_assert(std::size(kMigrations) == kHistorySchemaVersion);

// The manifest fields the history reads, each where it must be of its type: one of another
// (null, a number) is refused by name, not met later as "cannot use value() with null".
void CheckManifestFields(const nlohmann::json& manifest, const std::string& file) {
  if (!manifest.is_object())
    throw HistoryError(file + ": expected an object, got " + manifest.type_name());
  struct Field {
    const char* parent;  // "" for the top level
    const char* name;
    bool object;  // else a string
  };
  static constexpr Field kFields[] = {
      {"", "session", false},      {"", "started_at", false},
      {"", "environment", true},   {"", "scenario", true},
      {"", "host", true},          {"environment", "storbed.git_revision", false},
      {"scenario", "name", false}, {"host", "hostname", false},
  };
  for (const Field& f : kFields) {
    const nlohmann::json* parent = &manifest;
    if (*f.parent) {
      if (!manifest.contains(f.parent)) continue;
      parent = &manifest[f.parent];
    }
    if (!parent->contains(f.name)) continue;
    const nlohmann::json& v = (*parent)[f.name];
    if (f.object ? v.is_object() : v.is_string()) continue;
    throw HistoryError(file + ": " + (*f.parent ? std::string(f.parent) + "." : "") + f.name +
                       ": expected " + (f.object ? "an object" : "a string") + ", got " +
                       v.type_name());
  }
}

nlohmann::json ReadManifest(const std::string& dir) {
  const std::string file = dir + "/manifest.json";
  const std::optional<std::string> text = TryReadFile(file);
  if (!text) throw HistoryError(dir + ": not a results directory (no manifest.json)");
  nlohmann::json manifest;
  try {
    manifest = ParseJson(*text);
  } catch (const std::exception& e) {
    throw HistoryError(file + ": " + e.what());
  }
  CheckManifestFields(manifest, file);
  return manifest;
}

HistorySession SessionFrom(const HistoryStatement& row) {
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
  s.manifest_text = row.Text(9);
  s.manifest = ParseJson(s.manifest_text);
  return s;
}

constexpr const char* kSessionColumns =
    "id, session, results_dir, scenario, scenario_hash, revision, host, started_at, "
    "fingerprint_class, manifest";

// How often a read or one session's write is tried when the connection breaks under it.
constexpr int kConnectionAttempts = 3;

// A results directory as the rows of one session.
SessionRows RowsOf(const std::string& results_dir) {
  const nlohmann::json manifest = ReadManifest(results_dir);
  const std::vector<RunRecord> records = LoadResults(results_dir);
  if (records.empty()) throw HistoryError(results_dir + "/results.json: no runs");
  SessionRows rows;
  HistorySession& s = rows.session;
  s.session = manifest.value("session", "");
  if (s.session.empty()) s.session = results_dir + "@" + manifest.value("started_at", "");
  const nlohmann::json environment = manifest.value("environment", nlohmann::json::object());
  s.results_dir = std::filesystem::absolute(results_dir).lexically_normal().string();
  s.scenario = manifest.value("scenario", nlohmann::json::object()).value("name", "");
  s.scenario_hash = Sha256Hex(manifest.value("scenario", nlohmann::json::object()).dump());
  s.revision = environment.value("storbed.git_revision", "unknown");
  s.host = manifest.value("host", nlohmann::json::object()).value("hostname", "unknown");
  s.started_at = manifest.value("started_at", "");
  s.fingerprint_class = FingerprintClass(manifest);
  s.manifest = manifest;
  s.manifest_text = manifest.dump();
  const std::vector<CompareMetric> metrics = CompareMetrics(records);
  for (const RunRecord& r : records) {
    HistoryRun run{r.run_id, CellOf(r), ToString(r.status), nlohmann::json(r).dump(), {}};
    if (r.status == RunStatus::Ok && r.result)
      for (const CompareMetric& m : metrics)
        if (const auto v = m.value(r)) run.metrics.emplace_back(m.name, *v);
    rows.runs.push_back(std::move(run));
  }
  return rows;
}

}  // namespace

std::string FingerprintClass(const nlohmann::json& manifest) {
  std::string text;
  for (const auto& [item, value] : EnvironmentItems(manifest)) {
    if (item.rfind("load.", 0) == 0 || item == "storbed.git_revision") continue;
    text += item + "=" + value + "\n";
  }
  return Sha256Hex(text).substr(0, 16);
}

HistoryStore::HistoryStore(const std::string& spec, Open open) : db_(OpenHistoryDb(spec, open)) {
  Migrate(open);
}

HistoryStore::HistoryStore(std::unique_ptr<HistoryDb> db) : db_(std::move(db)) {
  Migrate(Open::Create);
}

template <class Act>
auto HistoryStore::WithReconnects(const std::string& doing, Act act) -> decltype(act(1)) {
  for (int attempt = 1;; ++attempt) {
    try {
      return act(attempt);
    } catch (const HistoryConnectionLost& e) {
      if (attempt == kConnectionAttempts)
        throw HistoryError(name() + ": the connection broke " + std::to_string(attempt) +
                               " times while " + doing + ": " + e.what(),
                           ErrorKind::Host);
      db_->Reconnect();
    }
  }
}

template <class Read>
auto HistoryStore::Reading(const std::string& what, Read read) -> decltype(read()) {
  return WithReconnects("reading " + what, [&](int) { return read(); });
}

std::vector<std::string> HistoryStore::MetricNames() {
  return Reading("the metric names", [&] {
    auto q = db_->Prepare("SELECT DISTINCT name FROM metrics ORDER BY name");
    std::vector<std::string> out;
    while (q->Step()) out.push_back(q->Text(0));
    return out;
  });
}

int HistoryStore::SchemaVersion() { return db_->SchemaVersion(); }

void HistoryStore::Migrate(Open open) {
  const int version = SchemaVersion();
  if (version > kHistorySchemaVersion)
    throw HistoryError(name() + ": history schema version " + std::to_string(version) +
                       " is newer than this storbed knows (" +
                       std::to_string(kHistorySchemaVersion) +
                       "): use the storbed that wrote it, or a newer one");
  // Read the version after the tables: a run creating the schema right now commits both.
  if (version == 0 && db_->TableCount() > 0 && SchemaVersion() == 0)
    throw HistoryError(name() +
                       ": a database that is not a storbed history (it has tables, "
                       "but no storbed schema version); nothing was changed");
  // A reader (gate, history, report) writes nothing: an empty server database, which exists
  // before any import, is not made a history by reading it.
  if (open == Open::Existing && version == 0 && db_->TableCount() == 0)
    throw HistoryError(name() +
                       ": holds no storbed history yet (`storbed history import DIR "
                       "--history " +
                       name() + "` or `run --history` creates it)");
  db_->PrepareForWrites();
  if (version == kHistorySchemaVersion) return;
  // Under the lock, read again: another run may have created the schema meanwhile.
  struct SchemaLock {
    HistoryDb& db;
    explicit SchemaLock(HistoryDb& d) : db(d) { db.LockSchema(); }
    ~SchemaLock() { db.UnlockSchema(); }
  } lock(*db_);
  HistoryTransaction t(*db_);
  const int now = SchemaVersion();
  if (now == kHistorySchemaVersion) return;
  for (int v = now; v < kHistorySchemaVersion; ++v) db_->Exec(db_->Dialect(kMigrations[v]));
  db_->SetSchemaVersion(kHistorySchemaVersion);
  t.Commit();
}

ImportOutcome HistoryStore::Import(const std::string& results_dir) {
  SessionRows rows = RowsOf(results_dir);
  ImportOutcome out;
  out.already_there = !Insert(rows, &out.found_after_break);
  out.session = rows.session;
  if (!out.already_there)  // runs written, as before: none when the session was there
    for (const HistoryRun& r : rows.runs) out.runs += r.status == "ok" && !r.metrics.empty();
  return out;
}

bool HistoryStore::Insert(SessionRows& rows, bool* found_after_break) {
  // The transaction dies with the connection: nothing of it is stored, so writing it again
  // is safe (and if the commit did land, the retry finds the session there).
  return WithReconnects("writing session " + rows.session.session + "; none of it was written",
                        [&](int attempt) {
                          const bool written = InsertOnce(rows);
                          // The first try did not find it: a retry that does saw a commit land in
                          // between.
                          if (!written && attempt > 1 && found_after_break)
                            *found_after_break = true;
                          return written;
                        });
}

bool HistoryStore::InsertOnce(SessionRows& rows) {
  HistorySession& s = rows.session;
  if (auto existing = FindSessionOnce(s.session)) {
    s = *existing;
    return false;
  }
  std::string duplicate;
  try {
    HistoryTransaction t(*db_);
    auto session = db_->Prepare(
        "INSERT INTO sessions (session, results_dir, scenario, scenario_hash, revision, host, "
        "started_at, fingerprint_class, manifest) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) "
        "RETURNING id");
    session->Bind(1, s.session)
        .Bind(2, s.results_dir)
        .Bind(3, s.scenario)
        .Bind(4, s.scenario_hash)
        .Bind(5, s.revision)
        .Bind(6, s.host)
        .Bind(7, s.started_at)
        .Bind(8, s.fingerprint_class)
        .Bind(9, s.manifest_text);
    if (!session->Step()) throw HistoryError(name() + ": INSERT returned no id");
    const int64_t id = session->Int(0);
    session.reset();  // SQLite: the statement done before the next
    for (const HistoryRun& r : rows.runs) {
      auto run = db_->Prepare(
          "INSERT INTO runs (session_id, run_id, cell, status, record) VALUES ($1, $2, $3, $4, "
          "$5) RETURNING id");
      run->Bind(1, id).Bind(2, r.run_id).Bind(3, r.cell).Bind(4, r.status).Bind(5, r.record);
      if (!run->Step()) throw HistoryError(name() + ": INSERT returned no id");
      const int64_t run_id = run->Int(0);
      run.reset();
      for (const auto& [metric, value] : r.metrics)
        db_->Prepare("INSERT INTO metrics (run, name, value) VALUES ($1, $2, $3)")
            ->Bind(1, run_id)
            .Bind(2, metric)
            .Bind(3, value)
            .Run();
    }
    t.Commit();
    s.id = id;
    return true;
  } catch (const HistoryDuplicate& e) {
    duplicate = e.what();  // the transaction is rolled back by now
  }
  // Another writer committed the same session between the look above and this insert.
  if (auto existing = FindSessionOnce(s.session)) {
    s = *existing;
    return false;
  }
  throw HistoryError(duplicate);  // a duplicate within the directory itself (two run ids alike)
}

SessionRows HistoryStore::Rows(int64_t session_id) {
  return Reading("session " + std::to_string(session_id), [&] {
    SessionRows rows;
    auto s =
        db_->Prepare(std::string("SELECT ") + kSessionColumns + " FROM sessions WHERE id = $1");
    s->Bind(1, session_id);
    if (!s->Step()) throw HistoryError(name() + ": no session " + std::to_string(session_id));
    rows.session = SessionFrom(*s);
    auto runs = db_->Prepare(
        "SELECT run_id, cell, status, record FROM runs WHERE session_id = $1 ORDER BY id");
    runs->Bind(1, session_id);
    while (runs->Step())
      rows.runs.push_back({runs->Text(0), runs->Text(1), runs->Text(2), runs->Text(3), {}});
    auto metrics = db_->Prepare(
        "SELECT runs.run_id, metrics.name, metrics.value FROM runs JOIN metrics ON metrics.run = "
        "runs.id WHERE runs.session_id = $1 ORDER BY runs.id, metrics.name");
    metrics->Bind(1, session_id);
    size_t at = 0;
    while (metrics->Step()) {
      // Both lists are in run order: walk the runs forward to the metric's.
      while (at < rows.runs.size() && rows.runs[at].run_id != metrics->Text(0)) ++at;
      if (at == rows.runs.size()) throw HistoryError(name() + ": a metric of no listed run");
      rows.runs[at].metrics.emplace_back(metrics->Text(1), metrics->Real(2).value_or(0));
    }
    return rows;
  });
}

std::vector<HistorySession> HistoryStore::Sessions(const std::string& scenario,
                                                   const std::string& since) {
  return Reading("the sessions", [&] {
    auto q = db_->Prepare(std::string("SELECT ") + kSessionColumns +
                          " FROM sessions WHERE ($1 = '' OR scenario = $1) AND started_at >= $2 "
                          "ORDER BY started_at, id");
    q->Bind(1, scenario).Bind(2, since);
    std::vector<HistorySession> out;
    while (q->Step()) out.push_back(SessionFrom(*q));
    // Sessions that started in the same second (two hosts, two runs at once) in an order
    // every store agrees on: by name, bytewise, not by the id each store's inserts gave.
    std::stable_sort(out.begin(), out.end(), [](const HistorySession& a, const HistorySession& b) {
      return std::tie(a.started_at, a.session) < std::tie(b.started_at, b.session);
    });
    return out;
  });
}

std::optional<HistorySession> HistoryStore::FindSession(const std::string& session) {
  return Reading("session " + session, [&] { return FindSessionOnce(session); });
}

std::optional<HistorySession> HistoryStore::FindSessionOnce(const std::string& session) {
  auto q =
      db_->Prepare(std::string("SELECT ") + kSessionColumns + " FROM sessions WHERE session = $1");
  q->Bind(1, session);
  if (!q->Step()) return std::nullopt;
  return SessionFrom(*q);
}

std::vector<RunRecord> HistoryStore::Records(int64_t session_id) {
  return Reading("the runs of session " + std::to_string(session_id), [&] {
    auto q = db_->Prepare("SELECT record FROM runs WHERE session_id = $1 ORDER BY id");
    q->Bind(1, session_id);
    std::vector<RunRecord> out;
    while (q->Step()) out.push_back(ParseJson(q->Text(0)).get<RunRecord>());
    return out;
  });
}

std::vector<HistoryPoint> HistoryStore::Points(const std::vector<int64_t>& session_ids,
                                               const std::string& metric) {
  return Reading("the values of " + metric, [&] {
    std::vector<HistoryPoint> out;
    for (const int64_t id : session_ids) {
      auto q = db_->Prepare(
          "SELECT runs.cell, metrics.value FROM runs JOIN metrics ON metrics.run = runs.id WHERE "
          "runs.session_id = $1 AND metrics.name = $2 AND runs.status = 'ok' ORDER BY runs.id");
      q->Bind(1, id).Bind(2, metric);
      while (q->Step()) out.push_back({id, q->Text(0), metric, q->Real(1).value_or(0)});
    }
    return out;
  });
}

}  // namespace storbed
