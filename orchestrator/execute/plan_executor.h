// Runs a plan's units for the scheduler: a guest unit boots its machine through the
// backend of the host it is given, a bare-metal unit runs here. Units on different
// threads share results, manifest and log sink, which are thread-safe; each unit gets
// its own backend (one connection, no sharing between threads) and its own LineLog.
#pragma once

#include <functional>
#include <future>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backend/accel.h"
#include "backend/backend.h"
#include "execute/backing_leases.h"
#include "execute/kept_guests.h"
#include "execute/line_log.h"
#include "images/image_builder.h"
#include "plan/run_hosts.h"
#include "plan/run_plan.h"
#include "plan/scheduler.h"
#include "results/manifest.h"
#include "results/results_dir.h"

namespace storbed {

class Progress;
class RoundGate;

// What the runner prepared before any unit starts. image_for must not create anything any
// more (every image exists), so threads only read; backings are leased (backing_leases.h).
struct PreparedRun {
  const Scenario& scenario;
  const RunPlan& plan;
  const RunOptions& options;
  ResultsDir& results;
  Manifest& manifest;
  LogSink& log;
  BackingLeases& backings;
  std::function<const GuestImage&(const MachineConfig&)> image_for;
  AccelDecision accel;
  std::vector<RunHost> hosts;
  bool prefix_lines = false;  // several hosts: every log line starts with "[host] "
  Progress* progress = nullptr;
  RoundGate* rounds = nullptr;  // --until-conclusive
};

// Makes the backend for one unit on `host`; throws LibvirtError when the host is unreachable.
using BackendMaker = std::function<std::unique_ptr<Backend>(const RunHost&)>;

class PlanExecutor : public UnitExecutor {
 public:
  PlanExecutor(const PreparedRun& run, BackendMaker make_backend);
  // A LibvirtError while connecting or booting becomes HostFailedError.
  void Run(size_t unit, const std::string& host) override;
  void Forget(size_t unit) override;
  // Adds {host, uri, error, at, moved_runs} to the manifest's host_failures.
  void HostFailed(const HostFailure& failure) override;
  // Records the unit's runs as failed on host "none".
  void Abandon(size_t unit, const std::string& why) override;
  // The schedule is over (every round ran, or the round gate stopped them): guests kept
  // for rounds that will not come are shut down.
  void Finish();

 private:
  const RunHost& HostNamed(const std::string& name) const;
  std::vector<PlannedRun> RunsOf(size_t unit) const;
  // reboot per_machine: the unit's rounds run in the machine kept from an earlier round,
  // or in one booted now and kept for the next.
  void RunKept(size_t unit, const RunHost& host);
  // The disk a unit's machine leases a backing of (bare metal: the raw file).
  DiskConfig DiskOf(const PlannedMachine& m) const;
  // Makes, on another thread, the backing unit + 1 will lease when it boots afresh or is
  // bare metal (a kept machine holds its own); invalid when there is none to make.
  std::future<void> PrepareNextBacking(size_t unit);
  // Waits for it, and logs a wait that held up the measurement.
  static void WaitForNextBacking(std::future<void>& next, LineLog& log);
  const PreparedRun& run_;
  BackendMaker make_backend_;
  RunHost local_;  // bare metal's host
  std::optional<KeptGuests> kept_;      // set when machines are kept across rounds
  std::map<std::string, size_t> rounds_left_;  // per kept machine: its units not yet run
};

// Whether the run keeps machines across rounds ("" when it does), or why it boots them per
// round although the scenario asked for per_machine.
std::string WhyRebootPerRound(const Scenario& scenario, const std::vector<RunHost>& hosts);
// The key of a kept machine: its target and machine variant.
std::string KeptKey(const PlannedMachine& m);

}  // namespace storbed
