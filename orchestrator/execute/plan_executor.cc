#include "execute/plan_executor.h"

#include <algorithm>
#include <chrono>
#include <future>
#include <optional>
#include <stdexcept>

#include "execute/bare_metal_target.h"
#include "execute/guest_target.h"
#include "execute/host_info.h"
#include "execute/round_gate.h"
#include "execute/run_context.h"
#include "libvirt/virt_handles.h"
#include "libvirt_uri.h"
#include "reports/number_text.h"
#include "tracefs_session.h"

namespace storbed {

std::string WhyRebootPerRound(const Scenario& scenario, const std::vector<RunHost>& hosts) {
  if (std::string why = WhyScenarioRebootsPerRound(scenario); !why.empty()) return why;
  if (hosts.size() != 1) return "the run has " + std::to_string(hosts.size()) + " hosts";
  const RunHost& h = hosts.front();
  if (h.backend == HostBackend::Libvirt && !UriIsOnThisHost(h.uri))
    return "host " + h.name + " is another machine";
  return "";
}

std::string KeptKey(const PlannedMachine& m) {
  return ToString(m.target) + "/" + std::to_string(m.machine);
}

PlanExecutor::PlanExecutor(const PreparedRun& run, BackendMaker make_backend)
    : run_(run), make_backend_(std::move(make_backend)) {
  local_.name = kLocalHost;
  local_.backend = HostBackend::None;
  if (run.scenario.reboot != Reboot::PerMachine) return;
  const std::string why = WhyRebootPerRound(run.scenario, run.hosts);
  if (!why.empty()) {
    if (run.scenario.order == RunOrder::Interleaved)
      LineLog(run.log, "") << "reboot per_machine: every round boots its machines (" << why
                           << ")\n";
    return;
  }
  kept_.emplace(MemAvailableKb() * 1024 / 2);
  for (const PlannedMachine& m : run.plan.machines)
    if (m.target != TargetKind::BareMetal && m.run_count) ++rounds_left_[KeptKey(m)];
}

void PlanExecutor::Finish() {
  if (kept_) kept_->ReleaseAll();
}

void PlanExecutor::RunKept(size_t unit, const RunHost& host) {
  const PlannedMachine& m = run_.plan.machines[unit];
  const MachineVariant& variant = run_.scenario.machines[m.machine];
  const std::string key = KeptKey(m);
  std::vector<PlannedRun> runs = RunsOf(unit);
  KeptGuest* k = kept_->Find(key);
  if (k && k->paused) {
    try {
      k->guest->Resume();
      k->paused = false;
      k->ctx->log << "resuming the " << k->guest->label()
                  << " guest, kept paused since its last round (reboot per_machine)\n";
      // Warm-ups warm a fresh boot: this machine is warm from its last round.
      const auto warmup = [](const PlannedRun& r) { return r.warmup; };
      if (const auto n = std::count_if(runs.begin(), runs.end(), warmup)) {
        runs.erase(std::remove_if(runs.begin(), runs.end(), warmup), runs.end());
        k->ctx->log << "  " << n << " warm-up run" << (n == 1 ? "" : "s")
                    << " left out: the machine is warm from its last round\n";
      }
    } catch (const std::exception& e) {
      k->ctx->log << "  warning: the kept " << k->guest->label()
                  << " guest did not resume: " << e.what() << "; booting another\n";
      kept_->Release(key);
      k = nullptr;
    }
  }
  if (!k) {
    LineLog log(run_.log, run_.prefix_lines ? "[" + host.name + "] " : "");
    kept_->MakeRoomFor(variant.machine.memory_bytes, log);
    auto fresh = std::make_unique<KeptGuest>();
    fresh->disk = variant.disk;
    fresh->log = std::make_unique<LineLog>(run_.log, run_.prefix_lines ? "[" + host.name + "] " : "");
    // Its own backing for as long as it is kept: another machine gets another file.
    fresh->lease.emplace(run_.backings.Acquire(fresh->disk));
    fresh->ctx.reset(new RunContext{run_.scenario, run_.options, run_.results, *fresh->log,
                                    fresh->lease->backing(), run_.manifest, host,
                                    variant.machine, fresh->disk, run_.progress, run_.rounds});
    try {
      fresh->backend = make_backend_(host);
      // The next machine's backing fills while this one boots, and is done before this one
      // measures: never beside a measured IO phase. (Its destructor waits on a throw.)
      std::future<void> next = PrepareNextBacking(unit);
      fresh->guest = GuestTarget::Boot(*fresh->ctx,
                                       {.target = m.target,
                                        .label = m.label,
                                        .image = run_.image_for(variant.machine),
                                        .accel = run_.accel,
                                        .backend = *fresh->backend},
                                       runs);
      WaitForNextBacking(next, *fresh->log);
    } catch (const LibvirtError& e) {
      *fresh->log << "host " << host.name << " failed: " << e.what() << "\n";
      throw HostFailedError(e.what());
    }
    if (!fresh->guest) {
      --rounds_left_[key];
      return;  // its runs are recorded as failed; the next round boots again
    }
    k = &kept_->Put(key, std::move(fresh));
  }
  ++k->rounds_served;
  const bool healthy = k->guest->RunJobs(runs);
  if (!healthy || --rounds_left_[key] == 0) {
    kept_->Release(key);
    return;
  }
  try {
    k->guest->Pause();
    k->paused = true;
  } catch (const std::exception& e) {
    k->ctx->log << "  warning: the " << k->guest->label()
                << " guest could not be paused (" << e.what() << "); shutting it down\n";
    kept_->Release(key);
  }
}

DiskConfig PlanExecutor::DiskOf(const PlannedMachine& m) const {
  // The unit's own machine variant and disk combination: the scenario's .machine/.disk
  // are machines[0]'s and are not this unit's.
  DiskConfig disk = run_.scenario.machines[m.machine].disk;
  // Bare metal reads the raw file a qcow2 image is converted from: a loop device over a
  // qcow2 file would show the host its metadata, not the guest's disk.
  if (m.target == TargetKind::BareMetal) disk.format = "raw";
  return disk;
}

std::future<void> PlanExecutor::PrepareNextBacking(size_t unit) {
  const size_t next = unit + 1;
  if (next >= run_.plan.machines.size()) return {};
  const PlannedMachine& m = run_.plan.machines[next];
  if (!m.run_count || (run_.rounds && !run_.rounds->Wanted(run_.plan.runs[m.first_run]))) return {};
  if (m.target != TargetKind::BareMetal && kept_->Find(KeptKey(m))) return {};  // holds one
  return std::async(std::launch::async, [this, disk = DiskOf(m)] { run_.backings.Prepare(disk); });
}

void PlanExecutor::WaitForNextBacking(std::future<void>& next, LineLog& log) {
  if (!next.valid()) return;
  const auto start = std::chrono::steady_clock::now();
  next.wait();
  const double waited =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (waited >= 0.1)
    log << "  waited " << FormatNumber(waited, "%.1f")
        << " s after the boot for the next machine's backing to fill, before measuring\n";
}

const RunHost& PlanExecutor::HostNamed(const std::string& name) const {
  if (name.empty()) return local_;
  for (const auto& h : run_.hosts)
    if (h.name == name) return h;
  throw std::logic_error("scheduler named an unknown host " + name);
}

std::vector<PlannedRun> PlanExecutor::RunsOf(size_t unit) const {
  const PlannedMachine& m = run_.plan.machines[unit];
  return {run_.plan.runs.begin() + m.first_run, run_.plan.runs.begin() + m.first_run + m.run_count};
}

void PlanExecutor::Run(size_t unit, const std::string& host_name) {
  const PlannedMachine& m = run_.plan.machines[unit];
  // Rounds that stopped early boot nothing more.
  if (run_.rounds && m.run_count && !run_.rounds->Wanted(run_.plan.runs[m.first_run])) return;
  const RunHost& host = HostNamed(host_name);
  if (kept_ && m.target != TargetKind::BareMetal) {
    RunKept(unit, host);  // it leases its own backing, for as long as it is kept
    return;
  }
  LineLog log(run_.log, run_.prefix_lines ? "[" + host.name + "] " : "");
  const MachineVariant& variant = run_.scenario.machines[m.machine];
  DiskConfig disk = DiskOf(m);
  // A remote host copies the backing per machine (and only reads ours); everything else
  // writes it in place and needs it alone.
  const bool in_place = host.backend != HostBackend::Libvirt || UriIsOnThisHost(host.uri);
  std::optional<BackingLeases::Lease> lease;
  if (in_place) lease.emplace(run_.backings.Acquire(disk));
  const Backing& backing = lease ? lease->backing() : run_.backings.Shared(disk);
  RunContext ctx{run_.scenario, run_.options, run_.results,    log,  backing,
                 run_.manifest, host,         variant.machine, disk, run_.progress,
                 run_.rounds};
  if (m.target == TargetKind::BareMetal) {
    RunBareMetalTarget(ctx, RunsOf(unit));
    return;
  }

  try {
    // The slots of a host boot at once: the storage pool tolerates concurrent uploads
    // of the shared kernel and initrd (libvirt/storage_pool.h).
    std::unique_ptr<Backend> backend = make_backend_(host);
    RunGuestTarget(ctx,
                   {.target = m.target,
                    .label = m.label,
                    .image = run_.image_for(variant.machine),
                    .accel = run_.accel,
                    .backend = *backend},
                   RunsOf(unit));
  } catch (const LibvirtError& e) {
    log << "host " << host.name << " failed: " << e.what() << "\n";
    throw HostFailedError(e.what());
  }
}

void PlanExecutor::Forget(size_t unit) {
  std::vector<std::string> ids;
  for (const auto& r : RunsOf(unit)) ids.push_back(r.run_id);
  run_.results.Forget(ids);
}

void PlanExecutor::HostFailed(const HostFailure& failure) {
  const RunHost& host = HostNamed(failure.host);
  std::vector<std::string> moved;
  for (size_t u : failure.moved_units)
    for (const auto& r : RunsOf(u)) moved.push_back(r.run_id);
  LineLog(run_.log, "") << "host " << host.name << " (" << host.uri << ") failed; "
                        << moved.size() << " runs move to another host if one is left\n";
  run_.manifest.AddHostFailure({.host = host.name,
                                .uri = host.uri,
                                .error = failure.error,
                                .at = UtcTimestamp(),
                                .moved_runs = moved});
}

void PlanExecutor::Abandon(size_t unit, const std::string& why) {
  const PlannedMachine& m = run_.plan.machines[unit];
  LineLog log(run_.log, "");
  for (const auto& run : RunsOf(unit)) {
    RunRecord r;
    r.run_id = run.run_id;
    r.target = ToString(m.target);
    r.accel = ToString(run_.accel.accel);
    r.machine = "machine-" + m.label;
    r.host_name = "none";
    r.backend = run_.hosts.empty() ? "" : ToString(run_.hosts.front().backend);
    r.job = run.job;
    r.params = run.params;
    r.status = RunStatus::Failed;
    r.error = why;
    log << "  " << r.run_id << ": failed: " << why << "\n";
    run_.results.Append(r);
  }
}

}  // namespace storbed
