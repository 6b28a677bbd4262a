#include "reports/compare.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <set>
#include <stdexcept>

#include "analysis/run_stats.h"
#include "reports/cells.h"
#include "scenario/scenario_fields.h"
#include "scenario/target_kind.h"

namespace storbed {
namespace {

struct Runs {
  std::vector<const RunRecord*> ok;
  size_t failed = 0;
};

// Cells in first-seen order; warm-ups are left out, failed runs only counted.
std::map<std::string, Runs> Cells(const std::vector<RunRecord>& records, const std::string& by,
                                  std::vector<std::string>& order) {
  std::map<std::string, Runs> cells;
  for (const RunRecord& r : records) {
    if (r.status == RunStatus::Warmup) continue;
    const std::string cell = CellOf(r, by);
    if (!cells.count(cell)) order.push_back(cell);
    Runs& runs = cells[cell];
    if (r.status == RunStatus::Ok && r.result) runs.ok.push_back(&r);
    else ++runs.failed;
  }
  return cells;
}

std::vector<double> Values(const std::vector<const RunRecord*>& runs, const CompareMetric& m) {
  std::vector<double> out;
  for (const RunRecord* r : runs)
    if (auto v = m.value(*r)) out.push_back(*v);
  return out;
}

std::string Percent(double fraction) {
  return std::to_string(int(std::lround(fraction * 100))) + "%";
}

// Better or worse when significant and outside the noise band, no change inside it.
void Judge(MetricRow& row, const std::vector<double>& b, const std::vector<double>& c,
           const CompareOptions& o) {
  if (row.direction == Better::None) {
    row.verdict = "side by side";
    return;
  }
  const auto wider = o.noise_wider.find(NoiseKey(row.cell, row.metric));
  const double noise = wider == o.noise_wider.end() ? o.noise : std::max(o.noise, wider->second);
  row.noise = noise;
  const bool significant = row.p && *row.p < o.alpha;
  const bool outside = row.ci_low && (*row.ci_low > 1 + noise || *row.ci_high < 1 - noise);
  const bool inside = row.ci_low && *row.ci_low >= 1 - noise && *row.ci_high <= 1 + noise;
  if (significant && outside) {
    const bool up = *row.ratio > 1;
    row.verdict = up == (row.direction == Better::Higher) ? "better" : "worse";
  } else if (inside) {
    row.verdict = "no change";
  } else {
    row.verdict = "inconclusive";
    const double cv = std::max(CoefficientOfVariation(b), CoefficientOfVariation(c));
    row.detail = "about " + std::to_string(RunsToResolve(cv, noise, o.alpha)) +
                 " runs a side would resolve +-" + Percent(noise) + " at this spread";
  }
  if (noise > o.noise)
    row.detail += std::string(row.detail.empty() ? "" : "; ") + "noise band +-" +
                  Percent(noise) + ": the baseline nights' own spread";
}

MetricRow CompareOneMetric(const std::string& cell, const CompareMetric& m,
                         const std::vector<double>& b, const std::vector<double>& c,
                         const CompareOptions& o, uint64_t seed) {
  MetricRow row;
  row.cell = cell;
  row.metric = m.name;
  row.direction = m.direction;
  row.n_base = b.size();
  row.n_cand = c.size();
  if (!b.empty()) row.median_base = Median(b);
  if (!c.empty()) row.median_cand = Median(c);
  if (row.median_base && row.median_cand && *row.median_base != 0)
    row.ratio = *row.median_cand / *row.median_base;
  if (b.size() < kMinRunsPerSide || c.size() < kMinRunsPerSide) {
    row.verdict = "too few runs";
    row.detail = "n=" + std::to_string(std::min(b.size(), c.size())) + ", need " +
                 std::to_string(kMinRunsPerSide);
    return row;
  }
  if (auto ci = BootstrapRatioCi(b, c, 0.95, seed)) {
    row.ci_low = ci->low;
    row.ci_high = ci->high;
  }
  row.p = MannWhitneyP(b, c);
  Judge(row, b, c, o);
  return row;
}

// A metric is worse over all cells only when its significant cells agree.
MetricSummary Summarize(const std::string& metric, const std::vector<MetricRow>& rows) {
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
  if (s.worse && s.better) s.verdict = "mixed";
  else if (s.worse) s.verdict = "worse";
  else if (s.better) s.verdict = "better";
  else if (judged && no_change == s.cells) s.verdict = "no change";
  else s.verdict = judged ? "inconclusive" : "too few runs";
  return s;
}

// One sample per repeat: the guest run's value over its bare-metal twin's in the same
// repeat, the cost of virtualisation as the runs saw it.
std::vector<double> TwinRatios(const Runs& guest, const Runs& bare, const CompareMetric& m) {
  std::map<int, double> bare_by_repeat;
  for (const RunRecord* r : bare.ok)
    if (auto v = m.value(*r); v && *v != 0) bare_by_repeat[r->params.value("repeat", 0)] = *v;
  std::vector<double> out;
  for (const RunRecord* r : guest.ok) {
    const auto v = m.value(*r);
    const auto it = bare_by_repeat.find(r->params.value("repeat", 0));
    if (v && it != bare_by_repeat.end()) out.push_back(*v / it->second);
  }
  return out;
}

const MetricRow* FindRow(const std::vector<MetricRow>& rows, const std::string& cell,
                         const std::string& metric) {
  for (const MetricRow& r : rows)
    if (r.cell == cell && r.metric == metric) return &r;
  return nullptr;
}

using CellMap = std::map<std::string, Runs>;

// The bare-metal control. For a guest cell whose bare-metal twin (same job and parameters)
// is on both sides: a judged metric that moved on bare metal too, beyond the noise, says
// so; and the guest/bare-metal ratio of IOPS is compared as a metric of its own.
void AddBareMetalControl(const CellMap& base, const CellMap& cand, const CompareMetric& iops,
                         const CompareOptions& o, uint64_t& seed, CompareReport& report) {
  if (IsTargetField(o.by)) return;  // cells carry no target to pair
  std::vector<MetricRow> added;
  for (const CellSummary& cell : report.cells) {
    const Runs& b = base.at(cell.cell);
    if (b.ok.empty() || b.ok.front()->target == kBareMetalTarget) continue;
    const std::string twin = kBareMetalTarget + cell.cell.substr(cell.cell.find(' '));
    if (!base.count(twin) || !cand.count(twin)) continue;
    for (MetricRow& row : report.rows) {
      if (row.cell != cell.cell || row.direction == Better::None || !row.ratio) continue;
      const MetricRow* t = FindRow(report.rows, twin, row.metric);
      if (!t || !t->ratio || (t->verdict != "better" && t->verdict != "worse")) continue;
      if ((*t->ratio > 1) != (*row.ratio > 1)) continue;
      const double change = (*t->ratio - 1) * 100;
      row.detail += std::string(row.detail.empty() ? "" : "; ") + "environment moved too (bare metal " +
                    (change > 0 ? "+" : "") + std::to_string(int(std::lround(change))) + "%)";
    }
    const CompareMetric ratio{kGuestOverBareMetric, Better::Higher, nullptr};
    added.push_back(CompareOneMetric(cell.cell, ratio, TwinRatios(b, base.at(twin), iops),
                                     TwinRatios(cand.at(cell.cell), cand.at(twin), iops), o,
                                     seed++));
  }
  report.rows.insert(report.rows.end(), added.begin(), added.end());
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

CompareSides SplitBy(const std::vector<RunRecord>& records, const std::string& field,
                     const std::vector<std::string>& declared) {
  std::vector<std::string> values;
  std::vector<std::string> side_of;
  std::set<std::string> varied;
  for (const RunRecord& r : records) {
    for (const auto& [k, v] : r.params.items())
      if (k != "repeat" && k != "warmup") varied.insert(k);
    std::string value;
    if (IsTargetField(field)) value = r.target;
    else if (r.params.contains(field)) value = ParamText(r.params[field]);
    side_of.push_back(value);
    if (!value.empty() && std::find(values.begin(), values.end(), value) == values.end())
      values.push_back(value);
  }
  std::string names = "targets";
  for (const auto& v : varied) names += ", " + v;
  const bool known = IsTargetField(field) || std::any_of(
      ScenarioFields().begin(), ScenarioFields().end(), [&](const FieldSpec& f) {
        return f.section != "scenario" && f.section + "." + f.name == field;
      });
  if (!known)
    throw std::invalid_argument("--by " + field +
                                ": no such field (a qualified name: targets, machine.X, disk.X or "
                                "job.X; fields that vary here: " + names + ")");
  if (values.empty())
    throw std::invalid_argument("--by: no run varies '" + field + "' (fields that vary: " +
                                names + ")");
  if (values.size() != 2) {
    std::string list;
    for (const auto& v : values) list += (list.empty() ? "" : ", ") + v;
    throw std::invalid_argument("--by " + field + ": compare takes two values, the runs have " +
                                std::to_string(values.size()) + " (" + list + ")");
  }
  auto rank = [&declared](const std::string& v) {
    return std::find(declared.begin(), declared.end(), v) - declared.begin();
  };
  std::stable_sort(values.begin(), values.end(),
                   [&](const std::string& a, const std::string& b) { return rank(a) < rank(b); });
  CompareSides sides{field + "=" + values[0], field + "=" + values[1], {}, {}};
  for (size_t i = 0; i < records.size(); ++i) {
    if (side_of[i] == values[0]) sides.base.push_back(records[i]);
    if (side_of[i] == values[1]) sides.cand.push_back(records[i]);
  }
  return sides;
}

bool CompareReport::AnyWorse() const {
  return std::any_of(rows.begin(), rows.end(),
                     [](const MetricRow& r) { return r.verdict == "worse"; });
}

CompareReport Compare(const CompareSides& sides, const CompareOptions& options) {
  CompareReport report;
  report.base_name = sides.base_name;
  report.cand_name = sides.cand_name;
  report.options = options;
  std::vector<std::string> order, cand_order;
  const auto base = Cells(sides.base, options.by, order);
  const auto cand = Cells(sides.cand, options.by, cand_order);
  for (const auto& c : cand_order)
    if (!base.count(c)) report.only_cand.push_back(c);
  std::vector<RunRecord> all = sides.base;
  all.insert(all.end(), sides.cand.begin(), sides.cand.end());
  const std::vector<CompareMetric> metrics = CompareMetrics(all);
  uint64_t seed = options.seed;
  for (const std::string& cell : order) {
    if (!cand.count(cell)) {
      report.only_base.push_back(cell);
      continue;
    }
    const Runs& b = base.at(cell);
    const Runs& c = cand.at(cell);
    CellSummary summary{cell, b.ok.size(), c.ok.size(), b.failed, c.failed, {}};
    for (const CompareMetric& m : metrics) {
      const std::vector<double> bv = Values(b.ok, m), cv = Values(c.ok, m);
      if (bv.empty() && cv.empty()) continue;
      report.rows.push_back(CompareOneMetric(cell, m, bv, cv, options, seed++));
      if (bv.size() >= 2 && cv.size() >= 2) {
        const double spread = std::max(CoefficientOfVariation(bv), CoefficientOfVariation(cv));
        summary.resolution.emplace_back(
            m.name, SmallestDetectableChange(spread, bv.size(), cv.size(), options.alpha));
      }
    }
    report.cells.push_back(std::move(summary));
  }
  AddBareMetalControl(base, cand, metrics.front() /* iops */, options, seed, report);
  std::vector<std::string> names;
  for (const CompareMetric& m : metrics) names.push_back(m.name);
  names.push_back(kGuestOverBareMetric);
  for (const std::string& name : names)
    if (std::any_of(report.rows.begin(), report.rows.end(),
                    [&](const MetricRow& r) { return r.metric == name; }))
      report.metrics.push_back(Summarize(name, report.rows));
  return report;
}

}  // namespace storbed
