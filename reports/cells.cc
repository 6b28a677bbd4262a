#include "reports/cells.h"

#include <algorithm>

namespace storbed {

std::string ParamText(const nlohmann::json& v) {
  return v.is_string() ? v.get<std::string>() : v.dump();
}

bool IsTargetField(const std::string& field) { return field == "targets" || field == "target"; }

std::string CellOf(const RunRecord& r, const std::string& by) {
  std::string cell = IsTargetField(by) ? r.job.name : r.target + " " + r.job.name;
  for (const auto& [k, v] : r.params.items())
    if (k != "repeat" && k != "warmup" && k != by)
      cell += " " + k + "=" + ParamText(v);
  return cell;
}

std::vector<RunRecord> ReportedRuns(const std::vector<RunRecord>& all_records) {
  std::vector<RunRecord> records;
  for (const auto& r : all_records)
    if (r.status != RunStatus::Warmup) records.push_back(r);
  std::stable_sort(records.begin(), records.end(),
                   [](const RunRecord& a, const RunRecord& b) { return a.run_id < b.run_id; });
  return records;
}

std::vector<CellRuns> GroupCells(const std::vector<RunRecord>& records) {
  std::vector<CellRuns> cells;
  for (const auto& r : records) {
    const std::string cell = CellOf(r);
    auto it = std::find_if(cells.begin(), cells.end(),
                           [&](const CellRuns& c) { return c.cell == cell; });
    if (it == cells.end()) it = cells.insert(cells.end(), CellRuns{cell, &r, {}, 0});
    if (r.status == RunStatus::Ok && r.result) it->ok.push_back(&r);
    else ++it->failed;
  }
  return cells;
}

}  // namespace storbed
