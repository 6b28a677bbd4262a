// `storbed run`: loads a scenario, prepares the backing and the guest image, runs every
// planned run (guests through the backend, bare metal through the local agent) and
// writes results as each run ends.
#pragma once

#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "images/kernel_locator.h"
#include "plan/run_options.h"
#include "results/out_dir_claim.h"
#include "results/run_record.h"
#include "scenario/scenario.h"

namespace storbed {

// The scenario the options name: scenario_path, or fio_path imported (fio_import.h).
// Throws ScenarioError.
Scenario LoadScenarioFor(const RunOptions& options);

// The guest kernel of `machine`: the host's newest, or machine.kernel with modules_dir
// (derived from a vmlinuz-<release> name when not given). Throws ImageError, or
// ScenarioError when modules_dir is needed and missing.
GuestKernel GuestKernelFor(const MachineConfig& machine);

struct RunOutcome {
  std::vector<RunRecord> records;
  std::vector<std::string> failures;  // "RUN_ID: reason", one per failed run
  bool interrupted = false;  // Ctrl-C: the runs not done are recorded as skipped
  // Why results.json or manifest.json could not be written at the end (a full out dir);
  // "" when both are on disk. `records` then holds what the disk does not.
  std::string unsaved;
  // The out directory's lock, kept while the caller writes its reports there.
  std::shared_ptr<OutDirClaim> out_dir_claim;
  // How much of the run measured: the measured runs' IO phases over the wall time from
  // the scenario's loading to the last record (manifest "efficiency"); the warm-ups' IO
  // phases apart.
  double io_phase_s = 0, warmup_s = 0, wall_s = 0;
};

// "efficiency: 25.8 s of IO phases in 48.6 s of wall time (0.53); with the warm-ups'
// 13.7 s, 0.81" (the second half only when there were warm-ups).
std::string EfficiencyLine(double io_phase_s, double warmup_s, double wall_s);

// Runs the scenario; progress goes to `log`. Throws ScenarioError for bad input,
// InterruptedError on Ctrl-C during setup, std::runtime_error when setup fails; Ctrl-C
// during the runs returns with `interrupted` set. Failed runs do not throw: they are in RunOutcome::failures.
RunOutcome RunScenario(const RunOptions& options, std::ostream& log);

}  // namespace storbed
