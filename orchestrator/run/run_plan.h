// A scenario expanded into runs, in the order they execute: for each target, every
// job. Guest runs of one target share one booted machine.
#pragma once

#include <string>
#include <vector>

#include "job.h"
#include "run/scenario.h"

namespace storbed {

struct PlannedRun {
  std::string run_id;  // "003-nvme-rand-read"
  TargetKind target;
  JobSpec job;         // job.target is filled when the device is known
};

std::vector<PlannedRun> PlanRuns(const Scenario& scenario);

}  // namespace storbed
