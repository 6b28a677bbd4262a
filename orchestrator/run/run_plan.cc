#include "run/run_plan.h"

#include <cstdio>

namespace storbed {

std::vector<PlannedRun> PlanRuns(const Scenario& scenario) {
  std::vector<PlannedRun> runs;
  for (const TargetKind target : scenario.targets) {
    for (const JobSpec& job : scenario.jobs) {
      char number[8];
      std::snprintf(number, sizeof number, "%03zu", runs.size() + 1);
      runs.push_back({std::string(number) + "-" + ToString(target) + "-" + job.name, target, job});
    }
  }
  return runs;
}

}  // namespace storbed
