// One results directory split by a field into its levels (two or more), the pairs compared
// and the ranking of the levels per cell and primary metric.
#include <algorithm>
#include <set>
#include <stdexcept>

#include "reports/cells.h"
#include "reports/compare.h"
#include "scenario/scenario_fields.h"

namespace storbed {
namespace {

std::string ListOf(const std::vector<std::string>& values) {
  std::string list;
  for (const auto& v : values) list += (list.empty() ? "" : ", ") + v;
  return list;
}

const MetricRow* RowOf(const CompareReport& r, const std::string& cell, const std::string& metric) {
  for (const MetricRow& row : r.rows)
    if (row.cell == cell && row.metric == metric) return &row;
  return nullptr;
}

}  // namespace

CompareLevels SplitLevels(const std::vector<RunRecord>& records, const std::string& field,
                          const std::vector<std::string>& declared, bool interleaved) {
  std::vector<std::string> values, side_of;
  std::set<std::string> varied;
  for (const RunRecord& r : records) {
    for (const auto& [k, v] : r.params.items())
      if (k != "repeat" && k != "warmup") varied.insert(k);
    std::string value;
    if (IsTargetField(field))
      value = r.target;
    else if (r.params.contains(field))
      value = ParamText(r.params[field]);
    side_of.push_back(value);
    if (!value.empty() && std::find(values.begin(), values.end(), value) == values.end())
      values.push_back(value);
  }
  std::string names = "targets";
  for (const auto& v : varied) names += ", " + v;
  const bool known =
      IsTargetField(field) ||
      std::any_of(ScenarioFields().begin(), ScenarioFields().end(), [&](const FieldSpec& f) {
        return f.section != "scenario" && f.section + "." + f.name == field;
      });
  if (!known)
    throw std::invalid_argument("--by " + field +
                                ": no such field (a qualified name: targets, machine.X, disk.X or "
                                "job.X; fields that vary here: " +
                                names + ")");
  if (values.empty())
    throw std::invalid_argument("--by: no run varies '" + field + "' (fields that vary: " + names +
                                ")");
  if (values.size() < 2)
    throw std::invalid_argument("--by " + field +
                                ": compare needs two values or more, the runs have one (" +
                                ListOf(values) + ")");
  auto rank = [&declared](const std::string& v) {
    return std::find(declared.begin(), declared.end(), v) - declared.begin();
  };
  std::stable_sort(values.begin(), values.end(),
                   [&](const std::string& a, const std::string& b) { return rank(a) < rank(b); });
  CompareLevels levels;
  levels.field = field;
  levels.blocked = interleaved;
  levels.runs.resize(values.size());
  for (const std::string& v : values) levels.names.push_back(field + "=" + v);
  for (size_t i = 0; i < records.size(); ++i) {
    const auto it = std::find(values.begin(), values.end(), side_of[i]);
    if (it != values.end()) levels.runs[size_t(it - values.begin())].push_back(records[i]);
  }
  return levels;
}

std::vector<CompareSides> CompareLevels::Pairs(bool all_pairs) const {
  std::vector<CompareSides> pairs;
  for (size_t i = 0; i < names.size(); ++i)
    for (size_t j = i + 1; j < names.size(); ++j)
      if (i == 0 || all_pairs) pairs.push_back({names[i], names[j], runs[i], runs[j], blocked});
  return pairs;
}

CompareSides SplitBy(const std::vector<RunRecord>& records, const std::string& field,
                     const std::vector<std::string>& declared, bool interleaved) {
  const CompareLevels levels = SplitLevels(records, field, declared, interleaved);
  if (levels.names.size() != 2) {
    std::vector<std::string> values;
    for (const std::string& n : levels.names) values.push_back(n.substr(field.size() + 1));
    throw std::invalid_argument("--by " + field + ": two values expected, the runs have " +
                                std::to_string(values.size()) + " (" + ListOf(values) + ")");
  }
  return levels.Pairs(false).front();
}

std::vector<RankingRow> RankLevels(const CompareLevels& levels,
                                   const std::vector<CompareReport>& reports) {
  // The reports against BASE, one per other level, in level order. A side's name may carry
  // its directory before the level ("out disk.aio=threads").
  auto names = [](const std::string& side, const std::string& level) {
    return side == level || (side.size() > level.size() &&
                             side.compare(side.size() - level.size() - 1, std::string::npos,
                                          " " + level) == 0);
  };
  std::vector<const CompareReport*> against_base(levels.names.size(), nullptr);
  for (const CompareReport& r : reports)
    if (names(r.base_name, levels.names.front()))
      for (size_t i = 1; i < levels.names.size(); ++i)
        if (names(r.cand_name, levels.names[i])) against_base[i] = &r;
  std::vector<RankingRow> out;
  if (reports.empty() || !against_base.back()) return out;
  const CompareReport& first = *against_base[1];
  for (const MetricRow& base_row : first.rows) {
    if (base_row.role != MetricRole::Primary || !base_row.median_base) continue;
    RankingRow ranking{base_row.cell, base_row.metric, {}};
    ranking.levels.push_back({levels.names.front(), *base_row.median_base, 1.0, ""});
    bool complete = true;
    for (size_t i = 1; i < levels.names.size(); ++i) {
      const MetricRow* row =
          against_base[i] ? RowOf(*against_base[i], base_row.cell, base_row.metric) : nullptr;
      if (!row || !row->median_cand) {
        complete = false;
        break;
      }
      ranking.levels.push_back({levels.names[i], *row->median_cand, row->ratio, row->verdict});
    }
    if (!complete) continue;
    // By the estimated ratio against BASE: in a blocked design it has the rounds' drift
    // divided out, which the plain medians keep.
    const bool higher = base_row.direction == Better::Higher;
    const double base_median = *base_row.median_base;
    auto key = [base_median](const RankedLevel& l) {
      return l.ratio ? *l.ratio : base_median != 0 ? l.median / base_median : 1.0;
    };
    std::stable_sort(ranking.levels.begin(), ranking.levels.end(),
                     [&](const RankedLevel& a, const RankedLevel& b) {
                       return higher ? key(a) > key(b) : key(a) < key(b);
                     });
    out.push_back(std::move(ranking));
  }
  return out;
}

}  // namespace storbed
