// What a target's runner gets for one unit (one boot) of a `storbed run`: the unit's own
// machine variant and disk combination (not the scenario's first), its backing and its
// host. Units on different hosts run in parallel threads: results and manifest are
// thread-safe, `log` is the unit's own LineLog.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "execute/backing.h"
#include "execute/runner.h"
#include "plan/run_hosts.h"
#include "plan/run_plan.h"
#include "results/manifest.h"
#include "results/results_dir.h"
#include "scenario/scenario.h"

namespace storbed {

class Progress;
class RoundGate;

struct RunContext {
  const Scenario& scenario;  // scenario-wide facts only (name, jobs); never .machine/.disk
  const RunOptions& options;
  ResultsDir& results;
  std::ostream& log;
  const Backing& backing;
  Manifest& manifest;  // rewritten as machines start
  const RunHost& host;  // where the unit runs; names the records' host_name and backend
  const MachineConfig& machine;  // the unit's machine variant (scenario.machines[i].machine)
  const DiskConfig& disk;        // its disk; bare metal's has format "raw"
  Progress* progress = nullptr;  // told of boots and runs; null in tests
  RoundGate* rounds = nullptr;   // --until-conclusive: which runs are still wanted
};

// Records a run that did not produce a result (a failed one is in ResultsDir::Failures).
void RecordFailure(RunContext& ctx, RunRecord record, RunStatus status, const std::string& why);

// Appends a finished record to the results first, then moves the agent's timelines out
// of record.result (results.json stays compact) and writes them, with the host's, to
// timelines/<run_id>.json and sets record.timelines_file. A failed timelines write is a
// warning in the record's host.warnings, never the loss of the record.
void StoreFinishedRecord(RunContext& ctx, RunRecord record, const std::vector<Timeline>& host);

// How long to wait for one job's reply: its runtime (or a pass at a pessimistic TCG
// rate) with a wide margin, because guests under TCG run IO many times slower.
std::chrono::milliseconds JobReplyTimeout(const JobSpec& job);

}  // namespace storbed
