// `storbed run`: loads a scenario, prepares the backing and the guest image, runs every
// planned run (guests through the backend, bare metal through the local agent) and
// writes results as each run ends.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "plan/run_options.h"
#include "results/run_record.h"
#include "scenario/scenario.h"

namespace storbed {

// The scenario the options name: scenario_path, or fio_path imported (fio_import.h).
// Throws ScenarioError.
Scenario LoadScenarioFor(const RunOptions& options);

struct RunOutcome {
  std::vector<RunRecord> records;
  std::vector<std::string> failures;  // "RUN_ID: reason", one per failed run
};

// Runs the scenario; progress goes to `log`. Throws ScenarioError for bad input,
// InterruptedError on Ctrl-C (after recording what finished), std::runtime_error when
// setup fails. Failed runs do not throw: they are in RunOutcome::failures.
RunOutcome RunScenario(const RunOptions& options, std::ostream& log);

}  // namespace storbed
