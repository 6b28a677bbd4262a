// The bare-metal twin: the same agent binary runs the same job on the host, against a
// loop device over the same backing, so its diskstats line is the host-device layer.
#pragma once

#include <string>
#include <vector>

#include "execute/run_context.h"

namespace storbed {

// Runs `job` with `storbed-agent --standalone` in `work_dir` and returns its result. A
// traced job's IOs go to `trace_out` (--trace-out) when it is given.
// Throws std::runtime_error with the agent's own message when it fails.
JobResult RunStandaloneAgent(const std::string& agent_path, const JobSpec& job,
                             const std::string& work_dir, std::chrono::milliseconds timeout,
                             const std::string& trace_out = "");

// Runs `runs` (all bare metal). Failures are recorded, not thrown; throws
// InterruptedError on Ctrl-C. The loop device is always detached.
void RunBareMetalTarget(RunContext& ctx, const std::vector<PlannedRun>& runs);

}  // namespace storbed
