#include "reports/compare.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <stdexcept>

#include "analysis/run_stats.h"
#include "judging/shift.h"
#include "judging/verdict.h"
#include "reports/cells.h"
#include "scenario/target_kind.h"

namespace storbed {
namespace {

struct Runs {
  std::vector<const RunRecord*> ok;
  size_t failed = 0;
};
using CellMap = std::map<std::string, Runs>;

// Cells in first-seen order; warm-ups are left out, failed runs only counted.
CellMap Cells(const std::vector<RunRecord>& records, const std::string& by,
              std::vector<std::string>& order) {
  CellMap cells;
  for (const RunRecord& r : records) {
    if (r.status == RunStatus::Warmup) continue;
    const std::string cell = CellOf(r, by);
    if (!cells.count(cell)) order.push_back(cell);
    Runs& runs = cells[cell];
    if (r.status == RunStatus::Ok && r.result)
      runs.ok.push_back(&r);
    else
      ++runs.failed;
  }
  return cells;
}

int RoundOf(const RunRecord& r) { return r.params.value("repeat", 0); }

// One run's value with the round it ran in.
struct Sample {
  int round = 0;
  double value = 0;
};

// A value that is no number is bad input: the results were tampered with or broken, and a
// NaN would sort anywhere and change the verdict.
double Checked(double v, const RunRecord& r, const std::string& metric) {
  if (!std::isfinite(v))
    throw std::invalid_argument("results.json run " + r.run_id + ": " + metric +
                                " is not a finite number");
  return v;
}

std::vector<Sample> Samples(const std::vector<const RunRecord*>& runs, const CompareMetric& m) {
  std::vector<Sample> out;
  for (const RunRecord* r : runs)
    if (auto v = m.value(*r)) out.push_back({RoundOf(*r), Checked(*v, *r, m.name)});
  return out;
}

// One sample per repeat: the guest run's value over its bare-metal twin's in the same
// repeat, the cost of virtualisation as the runs saw it.
std::vector<Sample> TwinRatios(const Runs& guest, const Runs& bare, const CompareMetric& m) {
  std::map<int, double> bare_by_round;
  for (const RunRecord* r : bare.ok)
    if (auto v = m.value(*r); v && *v != 0) bare_by_round[RoundOf(*r)] = Checked(*v, *r, m.name);
  std::vector<Sample> out;
  for (const RunRecord* r : guest.ok) {
    const auto v = m.value(*r);
    const auto it = bare_by_round.find(RoundOf(*r));
    if (v && it != bare_by_round.end())
      out.push_back({RoundOf(*r), Checked(*v, *r, m.name) / it->second});
  }
  return out;
}

std::vector<double> ValuesOf(const std::vector<Sample>& s) {
  std::vector<double> out;
  for (const Sample& x : s) out.push_back(x.value);
  return out;
}

// The rounds both sides ran, in round order: base[i] and cand[i] of one block, which ran in
// round rounds[i] when asked.
bool MatchRounds(const std::vector<Sample>& b, const std::vector<Sample>& c,
                 std::vector<double>& base, std::vector<double>& cand,
                 std::vector<int>* rounds = nullptr) {
  std::map<int, std::vector<double>> by_round_b, by_round_c;
  for (const Sample& s : b) by_round_b[s.round].push_back(s.value);
  for (const Sample& s : c) by_round_c[s.round].push_back(s.value);
  for (const auto& [round, values] : by_round_b) {
    const auto it = by_round_c.find(round);
    // One run a side per round is a block; anything else is not the design.
    if (round <= 0 || values.size() != 1 || it == by_round_c.end() || it->second.size() != 1)
      continue;
    base.push_back(values.front());
    cand.push_back(it->second.front());
    if (rounds) rounds->push_back(round);
  }
  return base.size() >= 3;
}

// The paired test at every look of a sequential plan: after each round from the first
// look on, the blocks of the rounds up to it.
void SequentialLooks(const std::vector<double>& base, const std::vector<double>& cand,
                     const std::vector<int>& rounds, const SequentialPlan& plan, Band band,
                     std::vector<size_t>& look_rounds, std::vector<ShiftTest>& looks) {
  const size_t last = rounds.empty() ? 0 : size_t(rounds.back());
  for (size_t r = plan.first_look; r <= std::min(last, plan.max_rounds); ++r) {
    std::vector<double> b, c;
    for (size_t i = 0; i < rounds.size() && size_t(rounds[i]) <= r; ++i) {
      b.push_back(base[i]);
      c.push_back(cand[i]);
    }
    if (b.size() < 3) continue;
    look_rounds.push_back(r);
    looks.push_back(PairedShift(b, c, band));
  }
}

// A row waiting for its family's verdicts.
struct Pending {
  size_t report = 0, row = 0;
  std::optional<ShiftTest> test;
  SequentialMember sequential;  // its looks, when the options say the rounds were sequential
};

bool AllPositive(const std::vector<double>& x) {
  return std::all_of(x.begin(), x.end(), [](double v) { return v > 0; });
}

MetricRow MakeRow(const std::string& cell, const CompareMetric& m, const std::vector<Sample>& b,
                  const std::vector<Sample>& c, const CompareOptions& o, bool blocked,
                  std::optional<ShiftTest>& test, SequentialMember& sequential) {
  MetricRow row;
  row.cell = cell;
  row.metric = m.name;
  row.direction = m.direction;
  row.role = m.role;
  row.noise = o.noise;
  const std::vector<double> bv = ValuesOf(b), cv = ValuesOf(c);
  row.n_base = bv.size();
  row.n_cand = cv.size();
  if (!bv.empty()) row.median_base = Median(bv);
  if (!cv.empty()) row.median_cand = Median(cv);
  if (bv.empty() || cv.empty()) {
    row.verdict = ToString(Verdict::TooFewRuns);
    row.detail = "n=" + std::to_string(std::min(bv.size(), cv.size())) + ": no runs on one side";
    return row;
  }
  if (!AllPositive(bv) || !AllPositive(cv)) {
    row.verdict = m.role == MetricRole::Shown ? ToString(Verdict::SideBySide)
                                              : ToString(Verdict::Inconclusive);
    row.detail = "values of 0 or below: a ratio needs values above 0";
    return row;
  }
  const Band band = Band::FromNoise(o.noise);
  std::vector<double> pb, pc;
  std::vector<int> rounds;
  if (blocked && MatchRounds(b, c, pb, pc, &rounds)) {
    test = PairedShift(pb, pc, band);
    row.design = "paired by round";
    if (o.sequential) {
      SequentialLooks(pb, pc, rounds, *o.sequential, band, sequential.rounds, sequential.looks);
      row.design = "paired by round, sequential";
    }
  } else {
    test = UnpairedShift(bv, cv, band);
    row.design = "unpaired";
    if (blocked) row.detail = "fewer than 3 rounds with one run a side: unpaired";
  }
  SetShiftFigures(row, *test);
  if (m.role == MetricRole::Shown) {
    row.verdict = ToString(Verdict::SideBySide);
    test.reset();  // shown, not in a family
  }
  return row;
}

std::string Join(const std::string& a, const std::string& b) {
  return a.empty() ? b : b.empty() ? a : a + "; " + b;
}

const MetricRow* FindRow(const std::vector<MetricRow>& rows, const std::string& cell,
                         const std::string& metric) {
  for (const MetricRow& r : rows)
    if (r.cell == cell && r.metric == metric) return &r;
  return nullptr;
}

}  // namespace

void SetShiftFigures(MetricRow& row, const ShiftTest& test) {
  row.ratio = std::exp(test.shift);
  if (test.ci95) {
    row.ci_low = std::exp(test.ci95->low);
    row.ci_high = std::exp(test.ci95->high);
  }
  row.p = test.p;
}

void NoteBareMetalMoves(CompareReport& report) {
  if (IsTargetField(report.options.by)) return;  // cells carry no target to pair
  for (MetricRow& row : report.rows) {
    if (row.direction == Better::None || !row.ratio || row.cell.rfind(kBareMetalTarget, 0) == 0)
      continue;
    const size_t space = row.cell.find(' ');
    if (space == std::string::npos) continue;
    const MetricRow* t =
        FindRow(report.rows, kBareMetalTarget + row.cell.substr(space), row.metric);
    if (!t || !t->ratio || (t->verdict != "better" && t->verdict != "worse")) continue;
    if ((*t->ratio > 1) != (*row.ratio > 1)) continue;
    const double change = (*t->ratio - 1) * 100;
    row.detail =
        Join(row.detail, "environment moved too (bare metal " + std::string(change > 0 ? "+" : "") +
                             std::to_string(int(std::lround(change))) + "%)");
  }
}

MetricSummary SummarizeMetric(const std::string& metric, const std::vector<MetricRow>& rows) {
  MetricSummary s;
  s.metric = metric;
  size_t no_change = 0, judged = 0;
  for (const MetricRow& r : rows) {
    if (r.metric != metric) continue;
    ++s.cells;
    if (r.verdict == "side by side") s.verdict = "side by side";
    s.worse += r.verdict == "worse";
    s.better += r.verdict == "better";
    no_change += r.verdict == "no change";
    judged += r.verdict != "too few runs";
  }
  if (s.verdict == "side by side") return s;
  if (s.worse && s.better)
    s.verdict = "mixed";
  else if (s.worse)
    s.verdict = "worse";
  else if (s.better)
    s.verdict = "better";
  else if (judged && no_change == s.cells)
    s.verdict = "no change";
  else
    s.verdict = judged ? "inconclusive" : "too few runs";
  return s;
}

namespace {

// Gathers one pair's rows (verdicts pending) and cells.
CompareReport GatherPair(const CompareSides& sides, const CompareOptions& options, size_t index,
                         std::vector<Pending>& pending) {
  CompareReport report;
  report.base_name = sides.base_name;
  report.cand_name = sides.cand_name;
  report.options = options;
  report.design = sides.blocked ? "paired by round" : "unpaired";
  std::vector<std::string> order, cand_order;
  const CellMap base = Cells(sides.base, options.by, order);
  const CellMap cand = Cells(sides.cand, options.by, cand_order);
  for (const auto& c : cand_order)
    if (!base.count(c)) report.only_cand.push_back(c);
  std::vector<RunRecord> all = sides.base;
  all.insert(all.end(), sides.cand.begin(), sides.cand.end());
  const std::vector<CompareMetric> metrics = CompareMetrics(all);
  auto add = [&](const std::string& cell, const CompareMetric& m, const std::vector<Sample>& b,
                 const std::vector<Sample>& c) {
    Pending p{index, report.rows.size(), std::nullopt, {}};
    report.rows.push_back(MakeRow(cell, m, b, c, options, sides.blocked, p.test, p.sequential));
    pending.push_back(std::move(p));
  };
  for (const std::string& cell : order) {
    if (!cand.count(cell)) {
      report.only_base.push_back(cell);
      continue;
    }
    const Runs& b = base.at(cell);
    const Runs& c = cand.at(cell);
    report.cells.push_back({cell, b.ok.size(), c.ok.size(), b.failed, c.failed, {}});
    for (const CompareMetric& m : metrics) {
      const std::vector<Sample> bv = Samples(b.ok, m), cv = Samples(c.ok, m);
      if (!bv.empty() || !cv.empty()) add(cell, m, bv, cv);
    }
  }
  // The guest/bare-metal ratio of IOPS, for guest cells whose twin is on both sides.
  if (!IsTargetField(options.by)) {
    const CompareMetric ratio{kGuestOverBareMetric, Better::Higher, MetricRole::Secondary, nullptr};
    for (const CellSummary& cell : std::vector<CellSummary>(report.cells)) {
      const Runs& b = base.at(cell.cell);
      if (b.ok.empty() || b.ok.front()->target == kBareMetalTarget) continue;
      const std::string twin = kBareMetalTarget + cell.cell.substr(cell.cell.find(' '));
      if (!base.count(twin) || !cand.count(twin)) continue;
      add(cell.cell, ratio, TwinRatios(b, base.at(twin), metrics.front()),
          TwinRatios(cand.at(cell.cell), cand.at(twin), metrics.front()));
    }
  }
  return report;
}

// Rounds gathered sequentially: the family judged at every look (judging/sequential.h); a
// row shows its repeated 95% interval, and no Holm-adjusted p (the boundary replaces it).
void JudgeRoleSequentially(MetricRole role, std::vector<CompareReport>& reports,
                           const std::vector<Pending>& pending, const CompareOptions& o) {
  std::vector<SequentialMember> family;
  std::vector<const Pending*> members;
  for (const Pending& p : pending) {
    if (!p.test || reports[p.report].rows[p.row].role != role) continue;
    SequentialMember m = p.sequential;
    m.direction = reports[p.report].rows[p.row].direction;
    family.push_back(std::move(m));
    members.push_back(&p);
  }
  const std::vector<SequentialJudgement> judged =
      JudgeSequentialFamily(family, *o.sequential, VerdictRule{o.alpha, o.noise});
  for (CompareReport& r : reports) {
    FamilyInfo& info = role == MetricRole::Primary ? r.primary : r.secondary;
    info.tests = family.size();
    info.comparisons = reports.size();
    info.correction = "Holm, sequential (" + std::string(kSequentialBoundary) + ")";
  }
  for (size_t i = 0; i < members.size(); ++i) {
    MetricRow& row = reports[members[i]->report].rows[members[i]->row];
    row.adjusted_p.reset();
    row.verdict = ToString(judged[i].verdict);
    if (judged[i].decided_at) row.decided_at = judged[i].decided_at;
    row.out_of_reach = judged[i].out_of_reach;
    row.to_decide = judged[i].to_decide;
    row.detail = Join(row.detail, judged[i].detail);
    if (judged[i].rci95) {
      row.ci_low = std::exp(judged[i].rci95->low);
      row.ci_high = std::exp(judged[i].rci95->high);
    }
  }
}

// Holm over one role's tests across every pair, then each row's verdict.
void JudgeRole(MetricRole role, std::vector<CompareReport>& reports,
               const std::vector<Pending>& pending, const CompareOptions& o) {
  if (o.sequential) return JudgeRoleSequentially(role, reports, pending, o);
  std::vector<FamilyMember> family;
  std::vector<const Pending*> members;
  for (const Pending& p : pending) {
    if (!p.test || reports[p.report].rows[p.row].role != role) continue;
    family.push_back({&*p.test, reports[p.report].rows[p.row].direction});
    members.push_back(&p);
  }
  const std::vector<Judgement> judged = JudgeFamily(family, VerdictRule{o.alpha, o.noise});
  for (CompareReport& r : reports) {
    FamilyInfo& info = role == MetricRole::Primary ? r.primary : r.secondary;
    info.tests = family.size();
    info.comparisons = reports.size();
  }
  for (size_t i = 0; i < members.size(); ++i) {
    CompareReport& report = reports[members[i]->report];
    MetricRow& row = report.rows[members[i]->row];
    row.adjusted_p = judged[i].adjusted_p;
    row.verdict = ToString(judged[i].verdict);
    row.detail = Join(row.detail, judged[i].detail);
    for (CellSummary& cell : report.cells)
      if (cell.cell == row.cell) cell.resolution.push_back({row.metric, judged[i].resolution});
  }
}

}  // namespace

std::vector<std::string> DeclaredValues(const nlohmann::json& scenario, const std::string& field) {
  std::vector<std::string> out;
  auto add = [&out](const nlohmann::json& v) {
    for (const auto& item : v.is_array() ? v : nlohmann::json::array({v}))
      if (std::find(out.begin(), out.end(), ParamText(item)) == out.end())
        out.push_back(ParamText(item));
  };
  if (!scenario.is_object()) return out;
  const size_t dot = field.find('.');
  const std::string section = dot == std::string::npos ? "" : field.substr(0, dot);
  const std::string name = field.substr(dot + 1);
  if (IsTargetField(field) && scenario.contains("targets")) add(scenario["targets"]);
  if ((section == "machine" || section == "disk") && scenario.contains(section) &&
      scenario[section].contains(name))
    add(scenario[section][name]);
  if (section == "job" && scenario.contains("jobs"))
    for (const auto& job : scenario["jobs"])
      if (job.contains(name)) add(job[name]);
  return out;
}

bool CompareReport::AnyWorse() const {
  return std::any_of(rows.begin(), rows.end(), [](const MetricRow& r) {
    return r.role == MetricRole::Primary && r.verdict == "worse";
  });
}

bool CompareReport::AnyJudged() const {
  return std::any_of(rows.begin(), rows.end(), [](const MetricRow& r) {
    return r.role == MetricRole::Primary && r.verdict != "too few runs";
  });
}

std::vector<CompareReport> CompareAll(const std::vector<CompareSides>& pairs,
                                      const CompareOptions& options) {
  std::vector<CompareReport> reports;
  std::vector<Pending> pending;
  for (size_t i = 0; i < pairs.size(); ++i)
    reports.push_back(GatherPair(pairs[i], options, i, pending));
  JudgeRole(MetricRole::Primary, reports, pending, options);
  JudgeRole(MetricRole::Secondary, reports, pending, options);
  for (CompareReport& report : reports) {
    NoteBareMetalMoves(report);
    std::vector<std::string> names;
    for (const MetricRow& r : report.rows)
      if (std::find(names.begin(), names.end(), r.metric) == names.end()) names.push_back(r.metric);
    for (const std::string& name : names)
      report.metrics.push_back(SummarizeMetric(name, report.rows));
  }
  return reports;
}

CompareReport Compare(const CompareSides& sides, const CompareOptions& options) {
  return CompareAll({sides}, options).front();
}

}  // namespace storbed
