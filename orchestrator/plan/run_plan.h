// A scenario expanded into runs, in the order they execute: for each target, each
// machine + disk combination (one boot), every job combination, warm-ups and repeats.
// Runs of one (target, machine) pair are contiguous: they share one booted machine.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "job.h"
#include "scenario/scenario.h"

namespace storbed {

struct PlannedRun {
  std::string run_id;  // "003-nvme-rand-read", "012-virtio-blk-seq-read-bs64k-r2"
  TargetKind target;
  JobSpec job;         // job.target is filled when the device is known
  size_t machine = 0;  // index into Scenario::machines
  // The combination: the list fields' values ("disk.aio", "job.bs", ...), "repeat"
  // (1-based, or 0 for a warm-up) and "warmup" (bool).
  nlohmann::json params = nlohmann::json::object();
  bool warmup = false;
};

// One boot: a target with one machine + disk combination (bare metal: one backing).
struct PlannedMachine {
  TargetKind target;
  size_t machine = 0;         // index into Scenario::machines
  std::string label;          // "virtio-blk", or "virtio-blk-m2" in a machine matrix
  size_t first_run = 0;       // its runs are runs[first_run, first_run + run_count)
  size_t run_count = 0;
};

struct RunPlan {
  std::vector<PlannedRun> runs;
  std::vector<PlannedMachine> machines;
};

// Expands, excludes and orders the runs (random order is reproducible by order_seed).
RunPlan PlanScenario(const Scenario& scenario);

// What `storbed run --dry-run` prints: the plan and a time estimate.
struct DryRun {
  RunPlan plan;
  size_t measured_runs = 0;
  size_t warmup_runs = 0;
  size_t guest_boots = 0;
  double estimate_s = 0;
};

// Assumed rates for the estimate: boots per accelerator, a job without runtime moves
// its bytes at kAssumedMiBs, each run costs kRunOverheadS more.
inline constexpr double kBootTcgS = 5, kBootKvmS = 4, kRunOverheadS = 2, kAssumedMiBs = 100;

// Plans the scenario and estimates its duration with `accel` ("kvm" or "tcg").
DryRun PlanDryRun(const Scenario& scenario, const std::string& accel);

// Why the scenario's machines boot every round although it may ask for reboot per_machine
// ("" when they can be kept): not interleaved, a disk passed through, a named backing. The
// run adds its hosts' reasons (execute/plan_executor.h).
std::string WhyScenarioRebootsPerRound(const Scenario& scenario);
// The dry run as text: one line per run, the machines, the counts and the estimate.
std::string RenderDryRun(const Scenario& scenario, const DryRun& dry, const std::string& accel);

}  // namespace storbed
