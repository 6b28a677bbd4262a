#include "history/nightly_series.h"

#include <fnmatch.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <stdexcept>

#include "history/change_points.h"
#include "reports/cells.h"
#include "reports/compare_input.h"
#include "reports/compare_metrics.h"

namespace storbed {
namespace {

bool CellMatches(const std::string& pattern, const std::string& cell) {
  if (pattern.empty()) return true;
  if (pattern.find_first_of("*?[") != std::string::npos)
    return fnmatch(pattern.c_str(), cell.c_str(), 0) == 0;
  return cell.find(pattern) != std::string::npos;
}

HistoryNight NightOf(const HistorySession& s) {
  return HistoryNight{
      .session = s.session, .started_at = s.started_at, .revision = s.revision, .values = {}};
}

// Marks the nights whose environment class is not the night before's.
void MarkEnvironmentChanges(std::vector<HistoryNight>& nights, const std::vector<std::string>& classes) {
  for (size_t i = 1; i < nights.size() && i < classes.size(); ++i)
    nights[i].environment_changed = classes[i] != classes[i - 1];
}

// Change points of each series, from its nights' values.
void FindChanges(std::vector<HistorySeries>& series, const ChangePointOptions& options = {}) {
  for (HistorySeries& s : series) {
    std::vector<std::vector<double>> values;
    for (const HistoryNight& n : s.nights) values.push_back(n.values);
    for (const ChangePoint& cp : FindChangePoints(values, options))
      s.changes.push_back({cp.night, cp.before, cp.after, cp.ratio, cp.p});
  }
}

// Per cell matching `cell_pattern`, `metric` over `sessions` (one night each); neither
// environment changes nor change points are marked yet.
std::vector<HistorySeries> CellSeries(HistoryStore& store,
                                      const std::vector<HistorySession>& sessions,
                                      const std::string& metric, const std::string& cell_pattern) {
  std::vector<int64_t> ids;
  std::map<int64_t, size_t> night_of;
  for (const auto& s : sessions) {
    night_of[s.id] = ids.size();
    ids.push_back(s.id);
  }
  std::map<std::string, HistorySeries> cells;
  for (const HistoryPoint& p : store.Points(ids, metric)) {
    if (!CellMatches(cell_pattern, p.cell)) continue;
    HistorySeries& s = cells[p.cell];
    if (s.nights.empty()) {
      s.cell = p.cell;
      s.metric = metric;
      for (const HistorySession& session : sessions) s.nights.push_back(NightOf(session));
    }
    s.nights[night_of[p.session_id]].values.push_back(p.value);
  }
  std::vector<HistorySeries> out;
  for (auto& [cell, s] : cells) out.push_back(std::move(s));
  return out;
}

}  // namespace

std::vector<HistorySeries> NightlySeries(HistoryStore& store,
                                         const std::vector<HistorySession>& sessions,
                                         const std::string& metric,
                                         const std::string& cell_pattern,
                                         const ChangePointOptions& changes) {
  std::vector<std::string> classes;
  for (const HistorySession& session : sessions) classes.push_back(session.fingerprint_class);
  std::vector<HistorySeries> out = CellSeries(store, sessions, metric, cell_pattern);
  for (HistorySeries& s : out) MarkEnvironmentChanges(s.nights, classes);
  FindChanges(out, changes);
  return out;
}

namespace {

HistoryView LoadHistoryView(const std::string& db, const std::string& dir,
                            const std::vector<RunRecord>& records) {
  if (!IsPostgresSpec(db) && !std::filesystem::is_regular_file(db))
    throw std::invalid_argument("report --history " + db + ": no such history database");
  const nlohmann::json manifest = LoadCompareManifest(dir, "report --history:");
  HistoryStore store(db, HistoryStore::Open::Existing);
  HistoryView view;
  view.db = db;
  view.scenario = manifest.value("scenario", nlohmann::json::object()).value("name", "");
  const std::string tonight = manifest.value("session", "");
  std::vector<HistorySession> sessions;
  std::vector<std::string> classes;
  // Every night of the scenario, whatever its environment: a new QEMU or kernel is often
  // the change a reader is looking for; it is marked, not hidden.
  for (const HistorySession& s : store.Sessions(view.scenario)) {
    sessions.push_back(s);
    classes.push_back(s.fingerprint_class);
    // Nights after tonight are left out: the report shows the history up to its run.
    if (!tonight.empty() && s.session == tonight) {
      view.tonight_imported = true;
      break;
    }
  }
  if (!view.tonight_imported) classes.push_back(FingerprintClass(manifest));
  const std::string revision = manifest.value("environment", nlohmann::json::object())
                                   .value("storbed.git_revision", "unknown");
  std::set<std::string> cells;
  for (const RunRecord& r : records)
    if (r.status == RunStatus::Ok) cells.insert(CellOf(r));
  for (const CompareMetric& m : CompareMetrics(records)) {
    if (m.name != "iops" && m.name != "p50_us" && m.name != "p99_us") continue;
    std::vector<HistorySeries> series = CellSeries(store, sessions, m.name, "");
    std::map<std::string, std::vector<double>> tonight_values;
    if (!view.tonight_imported) tonight_values = ValuesByCell(records, m);
    for (const std::string& cell : cells) {
      auto it = std::find_if(series.begin(), series.end(),
                             [&](const HistorySeries& s) { return s.cell == cell; });
      HistorySeries s;
      if (it != series.end()) s = std::move(*it);
      s.cell = cell;
      s.metric = m.name;
      if (s.nights.empty())
        for (const HistorySession& session : sessions) s.nights.push_back(NightOf(session));
      if (view.tonight_imported) {
        s.nights.back().tonight = true;
      } else {
        HistoryNight night{tonight, manifest.value("started_at", ""), revision, {}, true};
        night.values = tonight_values[cell];
        s.nights.push_back(night);
      }
      MarkEnvironmentChanges(s.nights, classes);
      const bool measured = std::any_of(s.nights.begin(), s.nights.end(),
                                        [](const HistoryNight& n) { return !n.values.empty(); });
      if (measured) view.series.push_back(std::move(s));
    }
  }
  FindChanges(view.series);
  // Cells together, in the metric order above within each cell.
  std::stable_sort(view.series.begin(), view.series.end(),
                   [](const HistorySeries& a, const HistorySeries& b) { return a.cell < b.cell; });
  return view;
}

}  // namespace

HistoryView HistoryForReport(const std::string& db, const std::string& dir,
                             const std::vector<RunRecord>& records) {
  try {
    return LoadHistoryView(db, dir, records);
  } catch (const HistoryError& e) {  // keeps its kind: not a history is bad input, I/O the host's
    throw HistoryError(std::string("report --history: ") + e.what(), e.kind());
  }
}

}  // namespace storbed
