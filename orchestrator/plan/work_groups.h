// Which units (booted machines) of a plan must run on the same host: an A/B pair of guest
// kernels is only a comparison when both sides ran on one host.
#pragma once

#include <string>
#include <vector>

#include "plan/run_plan.h"
#include "plan/scheduler.h"

namespace storbed {

// The A/B dimension: machines that differ only in these fields form one group.
inline const std::vector<std::string> kAbFields = {"machine.kernel", "machine.modules_dir"};

// The key of `machine`'s group: its target and every machine/disk parameter except the
// A/B fields (a kernel and the modules that go with it).
std::string AbGroupKey(const PlannedMachine& machine, const Scenario& scenario);

// The plan's guest units grouped by AbGroupKey (in plan order, each group's units too),
// work = their run count; bare-metal units are local groups of their own.
std::vector<WorkGroup> GroupUnitsForHosts(const RunPlan& plan, const Scenario& scenario);

// One group per unit in plan order: a single host running one guest at a time moves
// nothing, so the plan order stays exactly as planned.
std::vector<WorkGroup> UnitsInPlanOrder(const RunPlan& plan);

}  // namespace storbed
