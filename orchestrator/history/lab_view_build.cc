#include "history/lab_view_build.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <stdexcept>

#include "history/history_gate.h"
#include "reports/number_text.h"

namespace storbed {
namespace {

// The verdict of tonight's gate in a word and what it rests on.
void SayVerdict(const CompareReport& report, LabGateRow& row) {
  if (!report.comparable) {
    row.verdict = "not comparable";
    for (const EnvironmentDiff& d : report.differences)
      if (d.gating) row.detail += (row.detail.empty() ? "" : ", ") + d.item;
    return;
  }
  for (const MetricRow& r : report.rows)
    if (r.role == MetricRole::Primary && r.verdict == "worse")
      row.detail += (row.detail.empty() ? "" : "; ") + r.cell + " " + r.metric + " ratio " +
                    (r.ratio ? FormatNumber(*r.ratio, "%.3f") : "?");
  if (!row.detail.empty()) {
    row.verdict = "worse";
  } else if (AnyCannotJudge(report)) {
    row.verdict = "cannot judge";
    row.detail = "some primary row could not have seen a change of the guarded size";
  } else {
    row.verdict = "pass";
  }
}

LabGateRow GateHost(HistoryStore& store, const HistorySession& tonight, const GateOptions& o,
                    const GateBaselineRequest& request) {
  LabGateRow row{
      tonight.host, tonight.fingerprint_class, tonight.session, tonight.started_at, 0, 0, "", ""};
  try {
    const GateOutcome gate = GateFromHistory(store, tonight.manifest, store.Records(tonight.id),
                                             tonight.session, request, o);
    row.baseline_nights = gate.baseline.accepted.size();
    row.other_class = gate.baseline.other_class;
    SayVerdict(gate.report, row);
  } catch (const std::invalid_argument& e) {  // the host's first night: nothing to gate with
    row.verdict = "no baseline";
    row.detail = e.what();
  }
  return row;
}

LabScenarioView ScenarioView(HistoryStore& store, const std::vector<HistorySession>& sessions,
                             const GateOptions& o, const GateBaselineRequest& request) {
  LabScenarioView view;
  view.scenario = sessions.front().scenario;
  view.gate_rule =
      (request.any_class ? "the nights of every class picked by storbed gate --baseline "
                         : "the nights of its own fingerprint class picked by storbed "
                           "gate --baseline ") +
      request.spec_text + ", alpha " + FormatNumber(o.alpha, "%g") + ", guard " +
      FormatNumber(o.guard * 100, "%g") + "%";
  std::map<std::string, const HistorySession*> latest;
  for (const HistorySession& s : sessions) latest[s.host] = &s;
  for (const auto& [host, s] : latest) view.gates.push_back(GateHost(store, *s, o, request));
  for (const char* metric : {"iops", "p50_us", "p99_us"})
    for (const LabCell& cell : LabSeries(store, sessions, metric)) {
      LabCellView c{cell.cell, metric, {}, {}};
      for (const HostSeries& h : cell.hosts) {
        c.hosts.push_back({h.host, h.series});
        c.hosts.back().series.nights.back().tonight = true;
      }
      for (const LabChange& change : cell.changes)
        c.changes.push_back(std::string(metric) + ": " + DescribeLabChange(cell, change));
      view.cells.push_back(std::move(c));
    }
  std::stable_sort(view.cells.begin(), view.cells.end(),
                   [](const LabCellView& a, const LabCellView& b) { return a.cell < b.cell; });
  return view;
}

}  // namespace

LabView BuildLabView(const std::string& db, const GateOptions& gate,
                     const GateBaselineRequest& baseline) {
  if (!IsPostgresSpec(db) && !std::filesystem::is_regular_file(db))
    throw std::invalid_argument("report --lab --history " + db + ": no such history database");
  HistoryStore store(db, HistoryStore::Open::Existing);
  LabView view;
  view.db = db;
  std::map<std::string, std::vector<HistorySession>> by_scenario;
  for (HistorySession& s : store.Sessions()) by_scenario[s.scenario].push_back(std::move(s));
  if (by_scenario.empty())
    throw std::invalid_argument("report --lab --history " + db + ": holds no session");
  for (const auto& [name, sessions] : by_scenario)
    view.scenarios.push_back(ScenarioView(store, sessions, gate, baseline));
  return view;
}

}  // namespace storbed
