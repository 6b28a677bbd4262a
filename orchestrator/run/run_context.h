// What every target's runner shares during one `storbed run`.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "run/backing.h"
#include "run/results_dir.h"
#include "run/run_plan.h"
#include "run/runner.h"
#include "run/scenario.h"

namespace storbed {

struct RunContext {
  const Scenario& scenario;
  const RunOptions& options;
  ResultsDir& results;
  std::ostream& log;
  const Backing& backing;
  nlohmann::json& manifest;            // rewritten as machines start
  std::vector<std::string>& failures;  // "RUN_ID: reason"
};

// Records a run that did not produce a result and remembers the failure.
void RecordFailure(RunContext& ctx, RunRecord record, RunStatus status, const std::string& why);

// Moves the agent's timelines out of record.result (results.json stays compact) and
// writes them, with the host's, to timelines/<run_id>.json; sets record.timelines_file.
void StoreTimelines(RunContext& ctx, RunRecord& record, const std::vector<Timeline>& host);

// How long to wait for one job's reply: its runtime (or a pass at a pessimistic TCG
// rate) with a wide margin, because guests under TCG run IO many times slower.
std::chrono::milliseconds JobReplyTimeout(const JobSpec& job);

}  // namespace storbed
