#include "reports/cells.h"

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

}  // namespace storbed
