#include "history/gate_nights.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "analysis/run_stats.h"
#include "judging/night_model.h"
#include "reports/cells.h"
#include "reports/compare_metrics.h"

namespace storbed {
namespace {

struct Pending {
  size_t row = 0;
  ShiftTest test;
};

bool AllPositive(const std::vector<double>& x) {
  return std::all_of(x.begin(), x.end(), [](double v) { return v > 0 && std::isfinite(v); });
}

// One row of tonight's cell and metric; its test, when it has one, goes to `pending`.
MetricRow NightRow(const std::string& cell, const CompareMetric& m,
                   const std::vector<std::vector<double>>& nights,
                   const std::vector<double>& tonight, const GateOptions& o,
                   std::optional<ShiftTest>& test) {
  MetricRow row;
  row.cell = cell;
  row.metric = m.name;
  row.direction = m.direction;
  row.role = m.role;
  row.noise = o.noise;
  row.design = ToString(Design::Night);
  row.n_cand = tonight.size();
  row.median_cand = Median(tonight);
  bool positive = AllPositive(tonight);
  for (const auto& night : nights) {
    row.n_base += !night.empty();
    positive = positive && AllPositive(night);
  }
  if (!positive) {
    row.verdict = m.role == MetricRole::Shown ? "side by side" : "inconclusive";
    row.detail = "values of 0 or below: a ratio needs values above 0";
    return row;
  }
  test = NightShift(nights, tonight, Band::FromNoise(o.noise));
  if (test->n_base > 0) {
    row.median_base = std::exp(std::log(*row.median_cand) - test->shift);
    SetShiftFigures(row, *test);
  }
  if (!test->ci95) row.p.reset();  // too few nights or no spread: no test ran
  if (m.role == MetricRole::Shown) {
    row.verdict = "side by side";
    test.reset();
  }
  return row;
}

}  // namespace

CompareReport JudgeTonight(const std::vector<std::vector<RunRecord>>& nights,
                           const std::vector<RunRecord>& tonight, const GateOptions& o) {
  CompareReport report;
  report.options.alpha = o.alpha;
  report.options.noise = o.noise;
  report.design = ToString(Design::Night);
  std::vector<Pending> pending;
  std::vector<RunRecord> measured = ReportedRuns(tonight);
  for (const CellRuns& cell : GroupCells(measured)) {
    report.cells.push_back({cell.cell, 0, cell.ok.size(), 0, cell.failed, {}});
    for (const CompareMetric& m : CompareMetrics(measured)) {
      std::vector<double> tonight_values;
      for (const RunRecord* r : cell.ok)
        if (auto v = m.value(*r)) tonight_values.push_back(*v);
      if (tonight_values.empty()) continue;
      std::vector<std::vector<double>> night_values;
      for (const std::vector<RunRecord>& night : nights) {
        const auto by_cell = ValuesByCell(night, m);
        const auto it = by_cell.find(cell.cell);
        night_values.push_back(it == by_cell.end() ? std::vector<double>{} : it->second);
      }
      std::optional<ShiftTest> test;
      report.rows.push_back(NightRow(cell.cell, m, night_values, tonight_values, o, test));
      report.cells.back().n_base = std::max(report.cells.back().n_base, report.rows.back().n_base);
      if (test) pending.push_back({report.rows.size() - 1, *test});
    }
  }
  for (const MetricRole role : {MetricRole::Primary, MetricRole::Secondary}) {
    std::vector<FamilyMember> family;
    std::vector<const Pending*> members;
    for (const Pending& p : pending)
      if (report.rows[p.row].role == role) {
        family.push_back({&p.test, report.rows[p.row].direction});
        members.push_back(&p);
      }
    const std::vector<Judgement> judged = JudgeNights(family, {o.alpha, o.noise}, o.guard);
    (role == MetricRole::Primary ? report.primary : report.secondary).tests = family.size();
    for (size_t i = 0; i < members.size(); ++i) {
      MetricRow& row = report.rows[members[i]->row];
      row.adjusted_p = judged[i].adjusted_p;
      row.verdict = ToString(judged[i].verdict);
      row.detail = judged[i].detail;
      row.guard_power = judged[i].guard_power;
    }
  }
  NoteBareMetalMoves(report);
  std::vector<std::string> names;
  for (const MetricRow& r : report.rows)
    if (std::find(names.begin(), names.end(), r.metric) == names.end()) names.push_back(r.metric);
  for (const std::string& name : names)
    report.metrics.push_back(SummarizeMetric(name, report.rows));
  return report;
}

bool AnyCannotJudge(const CompareReport& report) {
  return std::any_of(report.rows.begin(), report.rows.end(), [](const MetricRow& r) {
    return r.role == MetricRole::Primary && r.verdict == "cannot judge";
  });
}

}  // namespace storbed
