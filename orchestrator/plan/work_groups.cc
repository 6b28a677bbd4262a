#include "plan/work_groups.h"

#include <algorithm>
#include <map>

namespace storbed {

std::string AbGroupKey(const PlannedMachine& machine, const Scenario& scenario) {
  nlohmann::json params = scenario.machines[machine.machine].params;
  for (const auto& field : kAbFields) params.erase(field);
  return ToString(machine.target) + " " + params.dump();
}

std::vector<WorkGroup> GroupUnitsForHosts(const RunPlan& plan, const Scenario& scenario) {
  std::vector<WorkGroup> groups;
  std::map<std::string, size_t> by_key;
  for (size_t u = 0; u < plan.machines.size(); ++u) {
    const PlannedMachine& m = plan.machines[u];
    if (m.target == TargetKind::BareMetal) {
      groups.push_back({{u}, m.run_count, true});
      continue;
    }
    const auto [it, added] = by_key.emplace(AbGroupKey(m, scenario), groups.size());
    if (added) groups.push_back({{}, 0, false});
    groups[it->second].units.push_back(u);
    groups[it->second].work += m.run_count;
  }
  return groups;
}

std::vector<WorkGroup> UnitsInPlanOrder(const RunPlan& plan) {
  std::vector<WorkGroup> groups;
  for (size_t u = 0; u < plan.machines.size(); ++u)
    groups.push_back({{u}, plan.machines[u].run_count,
                      plan.machines[u].target == TargetKind::BareMetal});
  return groups;
}

}  // namespace storbed
