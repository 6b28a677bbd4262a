// `storbed run` in three steps, each testable without a VM: PrepareRun (load, validate,
// plan, results dir, manifest, backings, guest images, accelerator), ExecuteRun (the
// plan's units through PlanExecutor and the scheduler) and FinishRun (the manifest's end
// and the outcome). RunDeps holds the side effects a test swaps for fakes.
#pragma once

#include <chrono>
#include <functional>
#include <iosfwd>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backend/accel.h"
#include "backend/backend.h"
#include "execute/backing_leases.h"
#include "execute/line_log.h"
#include "execute/round_gate.h"
#include "execute/runner.h"
#include "execute/temp_dir.h"
#include "images/image_builder.h"
#include "plan/run_hosts.h"
#include "plan/run_plan.h"
#include "plan/scheduler.h"
#include "results/manifest.h"
#include "results/out_dir_claim.h"
#include "results/results_dir.h"

namespace storbed {

struct RunDeps {
  // The backend of one unit on `host`; names libvirt domains after `session`.
  std::function<std::unique_ptr<Backend>(const RunHost& host, const std::string& session)>
      make_backend;
  // The guest image (kernel + initramfs with the agent) for `machine`.
  // The image of `machine`'s kernel with `modules` (GuestModulesFor the scenario).
  std::function<GuestImage(const MachineConfig& machine, const std::vector<std::string>& modules,
                           const RunOptions& options)>
      build_image;
  // The accelerator for `choice` ("auto", "kvm", "tcg"); may boot `image` in `probe_dir`.
  std::function<AccelDecision(const std::string& choice, const GuestImage& image,
                              const std::string& probe_dir)>
      decide_accel;
  std::function<std::string()> qemu_version;  // this host's qemu-system-x86_64 --version
  // The host-side input checks --dry-run runs too (input_checks.h); throws ScenarioError.
  std::function<void(const Scenario& scenario, const RunOptions& options)> check_inputs;
};

// The real backends, image builder, KVM probe and QEMU.
RunDeps RealRunDeps();

// Which directions the scenario's jobs take: a user's backing with holes is refused for
// reads, a block device without disk.allow_writes for writes.
struct JobDirections {
  bool reads = false;
  bool writes = false;
};

// What PrepareRun made; ExecuteRun and FinishRun use it. Owns the work directory (the
// backings) until destroyed. Not movable: leases and the manifest point into it.
struct PreparedScenario {
  RunOptions options;
  Scenario scenario;
  RunPlan plan;
  std::vector<RunHost> hosts;
  std::string session;
  // Held until the end, and by the outcome while the CLI writes the reports: no second
  // run writes there meanwhile.
  std::shared_ptr<OutDirClaim> claim;
  std::optional<ResultsDir> results;
  std::optional<Manifest> manifest;
  std::optional<LogSink> sink;
  std::optional<TempDir> work;
  std::optional<BackingLeases> backings;     // after work: released first
  std::map<std::string, GuestImage> images;  // by GuestImageKey
  AccelDecision accel;
  JobDirections directions;
  std::unique_ptr<RoundGate> rounds;  // --until-conclusive
  std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
};

// The images map's key of `machine`'s kernel.
std::string GuestImageKey(const MachineConfig& machine);

// Loads and validates the scenario, makes the results dir, writes the first manifest,
// and makes every backing and guest image the plan needs and decides the accelerator.
// Throws ScenarioError for bad input, std::runtime_error when setup fails.
std::unique_ptr<PreparedScenario> PrepareRun(const RunOptions& options, const RunDeps& deps,
                                             std::ostream& log);

// Runs every planned unit. Failed runs are recorded, not thrown; throws InterruptedError
// on Ctrl-C after recording every run not yet done as skipped (kInterruptedBeforeItRan)
// and marking the manifest interrupted.
std::vector<HostStatus> ExecuteRun(PreparedScenario& run, const RunDeps& deps);

// Stamps the manifest's end and the hosts' statuses; returns the records and failures.
RunOutcome FinishRun(PreparedScenario& run, const std::vector<HostStatus>& statuses);

// The error of a run that Ctrl-C stopped before it began.
inline constexpr const char* kInterruptedBeforeItRan = "interrupted before it ran";

// PrepareRun, ExecuteRun, FinishRun. Ctrl-C during the runs returns the outcome with
// `interrupted` set; during PrepareRun it throws InterruptedError.
RunOutcome RunScenarioWith(const RunOptions& options, const RunDeps& deps, std::ostream& log);

}  // namespace storbed
