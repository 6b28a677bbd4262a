// The bare-metal twin: the same agent binary runs the same job on the host, against a
// loop device over the same backing, so its diskstats line is the host-device layer.
#pragma once

#include <string>
#include <vector>

#include "backend/agent_link.h"  // AgentSilentError, kAgentSilenceLimit
#include "execute/run_context.h"

namespace storbed {

// The agent's log of run `run_id`: "agent-RUN_ID.log", in the work dir and, copied, in the
// out dir's bare-metal/, one per run, so each repeat keeps its own.
std::string AgentLogName(const std::string& run_id);

// Runs `job` with `storbed-agent --standalone --heartbeat` in `work_dir`, its output in
// `log_name` there (messages name it as bare-metal/LOG_NAME, where it is kept), and returns
// its result. A traced job's IOs go to `trace_out` (--trace-out) when it is given. Throws
// AgentSilentError when the agent's log gains nothing, not even a heartbeat, for
// `silence_limit` (a SIGSTOPped or hung agent; it is then killed and reaped), Error
// (Host) past `timeout`, and with the agent's own message when it fails.
JobResult RunStandaloneAgent(const std::string& agent_path, const JobSpec& job,
                             const std::string& work_dir, const std::string& log_name,
                             std::chrono::milliseconds timeout, const std::string& trace_out = "",
                             std::chrono::milliseconds silence_limit = kAgentSilenceLimit);

// Runs `runs` (all bare metal). Failures are recorded, not thrown; throws
// InterruptedError on Ctrl-C. The loop device is always detached.
void RunBareMetalTarget(RunContext& ctx, const std::vector<PlannedRun>& runs);

}  // namespace storbed
