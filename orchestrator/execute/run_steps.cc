#include "execute/run_steps.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <ctime>
#include <filesystem>
#include <ostream>
#include <set>

#include "backend/disk_driver.h"
#include "backend/interrupt.h"
#include "execute/environment_fingerprint.h"
#include "execute/guest_modules.h"
#include "execute/host_backend.h"
#include "execute/host_info.h"
#include "execute/plan_executor.h"
#include "execute/progress.h"
#include "images/filesystem_image.h"
#include "passthrough/pci_safety.h"
#include "plan/work_groups.h"

namespace storbed {
namespace {

// The backing of one disk combination: nothing (null-co), the user's file or device, a
// filesystem image with its test file, or a filled raw file; qcow2 is converted from it.
Backing MakeBacking(const DiskConfig& disk, const std::string& file, JobDirections directions,
                    const PassthroughSources& sources) {
  if (!DriverHasStorage(disk.driver)) {
    Backing b;
    b.size_bytes = disk.size_bytes;
    b.how = "none: QEMU's null-co driver completes every request after " +
            std::to_string(disk.null_latency_ns) + " ns without storage";
    b.null_co = true;
    return b;
  }
  if (!disk.passthrough.empty()) {
    // Bare metal runs on the device's namespace while the host's nvme driver still has it;
    // the guest gets the whole controller (guest_target.cc binds it to vfio-pci).
    const std::string ns = PassthroughNamespaceDevice(disk.passthrough, sources);
    if (ns.empty())
      throw ScenarioError("disk.passthrough: PCI device " + disk.passthrough +
                          " shows no NVMe namespace in sysfs");
    Backing b = UseExistingBacking(ns, directions.reads);
    b.how = "NVMe namespace " + ns + " of PCI device " + disk.passthrough +
            " (bare metal; guests get the device through vfio-pci)";
    return b;
  }
  if (!disk.backing.empty()) {
    Backing b = UseExistingBacking(disk.backing, directions.reads);
    // Validation refuses writes on a /dev path; this catches a block device elsewhere.
    if (b.block_device && directions.writes && !disk.allow_writes)
      throw ScenarioError("disk.backing: " + disk.backing +
                          " is a block device and the scenario has write jobs; set "
                          "disk.allow_writes true if overwriting it is meant");
    return b;
  }
  Backing b;
  if (disk.filesystem.empty()) {
    b = CreateFilledBacking(file, disk.size_bytes);
  } else {
    const FilesystemImage image =
        CreateFilesystemImage({.image_path = file,
                               .type = disk.filesystem,
                               .image_bytes = disk.image_bytes(),
                               .file = kFsTestFile,
                               .file_bytes = disk.fs_file_bytes,
                               .fill = [](const std::string& path, uint64_t bytes) {
                                 CreateFilledBacking(path, bytes);
                               }});
    b.path = file;
    b.size_bytes = image.image_bytes;
    b.created = true;
    b.how = "created " + image.type + " image of " + std::to_string(image.image_bytes) +
            " bytes (" + image.mkfs_command + ") holding " + image.file + " of " +
            std::to_string(image.file_bytes) + " bytes of pseudo-random data";
    b.filesystem = disk.filesystem;
  }
  if (disk.format == "qcow2") {
    const std::string qcow2 = file.substr(0, file.size() - 4) + ".qcow2";
    ConvertToQcow2(file, qcow2);
    b.path = qcow2;
    b.format = "qcow2";
    b.how += "; converted to qcow2 with qemu-img convert (every cluster allocated)";
  }
  return b;
}

ManifestDoc InitialManifest(const PreparedScenario& p) {
  ManifestDoc doc;
  for (const auto& m : p.plan.machines)
    for (size_t i = m.first_run; i < m.first_run + m.run_count; ++i)
      doc.plan.push_back({{"run_id", p.plan.runs[i].run_id},
                          {"machine", m.label},
                          {"params", p.plan.runs[i].params}});
  doc.host = DescribeHost();
  FingerprintSources sources;
  sources.work_dir = p.options.work_dir;
  doc.environment = EnvironmentFingerprint(sources);
  doc.scenario_file = !p.options.fio_args.empty() ? "--fio-args " + p.options.fio_args
                      : p.options.fio_path.empty() ? p.options.scenario_path
                                                   : p.options.fio_path;
  doc.scenario = p.scenario.expanded;
  doc.order = ToString(p.scenario.order);
  doc.order_seed = p.scenario.order_seed;
  doc.session = p.session;
  doc.hosts = DescribeHosts(p.hosts, {});
  doc.started_at = UtcTimestamp();
  return doc;
}

// One backing per distinct disk size or backing path (most scenarios have one), and a
// copy for each further machine that runs at the same time (backing_leases.h).
void MakeBackingLeases(PreparedScenario& p) {
  auto files = std::make_shared<std::atomic<size_t>>(0);
  p.backings.emplace([&p, files](const DiskConfig& disk, size_t copy) {
    if (DriverHasStorage(disk.driver))
      LineLog(*p.sink, "") << "preparing backing (" << (disk.image_bytes() >> 20) << " MiB"
                           << (disk.filesystem.empty() ? "" : " " + disk.filesystem) << ")...\n";
    const size_t n = (*files)++;
    const std::string file =
        p.work->path() + "/backing" + (n == 0 ? "" : "-" + std::to_string(n)) + ".raw";
    Backing b = MakeBacking(disk, file, p.directions, p.options.passthrough_sources);
    const std::string key = BackingLeases::KeyOf(disk);
    if (copy > 0)
      p.manifest->AddBackingCopy(key, b.path);
    else
      p.manifest->AddBacking(key, {.path = b.path,
                                   .size_bytes = b.size_bytes,
                                   .how = b.how,
                                   .format = b.format,
                                   .filesystem = b.filesystem,
                                   .null_co = b.null_co});
    return b;
  });
}

// One guest image per distinct kernel (a kernel list makes an A/B matrix).
const GuestImage& ImageFor(PreparedScenario& p, const RunDeps& deps, const MachineConfig& machine,
                           std::ostream& log) {
  const std::string key = GuestImageKey(machine);
  auto it = p.images.find(key);
  if (it != p.images.end()) return it->second;
  GuestImage image = deps.build_image(machine, GuestModulesFor(p.scenario), p.options);
  log << DescribeImage(image);
  p.manifest->AddGuestImage(key, {.kernel = image.kernel_path,
                                  .kernel_release = image.kernel_release,
                                  .initrd = image.initrd_path,
                                  .content_hash = image.content_hash,
                                  .modules = image.modules,
                                  .builtin = image.builtin,
                                  .from_cache = image.from_cache});
  return p.images.emplace(key, std::move(image)).first->second;
}

// Every image and each disk's first backing are made now: threads only look them up.
// The accelerator is decided here for every host: inventory hosts are expected to be
// alike (--accel overrides when they are not).
void PrepareMachines(PreparedScenario& p, const RunDeps& deps, std::ostream& log) {
  p.backings->Shared(p.scenario.machines.at(0).disk);
  bool needs_guest = false;
  for (const auto t : p.scenario.targets) needs_guest |= t != TargetKind::BareMetal;
  if (needs_guest) {
    const MachineConfig& first = p.scenario.machines.at(0).machine;
    const GuestImage& image = ImageFor(p, deps, first, log);
    const std::string choice = p.options.accel.empty() ? first.accel : p.options.accel;
    p.accel = deps.decide_accel(choice, image, p.results->File("kvm-probe"));
    log << "accelerator: " << ToString(p.accel.accel) << " (" << p.accel.reason << ")\n";
    p.manifest->SetAccel(ToString(p.accel.accel), p.accel.reason, deps.qemu_version());
  }
  for (const PlannedMachine& m : p.plan.machines) {
    DiskConfig disk = p.scenario.machines[m.machine].disk;
    if (m.target == TargetKind::BareMetal) disk.format = "raw";  // as PlanExecutor leases it
    p.backings->Shared(disk);
    if (m.target != TargetKind::BareMetal)
      ImageFor(p, deps, p.scenario.machines[m.machine].machine, log);
  }
}

// After Ctrl-C: every planned run without a record gets one, skipped, so results.json
// says what did not run instead of leaving it out.
void MarkPendingSkipped(PreparedScenario& p) {
  std::set<std::string> done;
  for (const auto& r : p.results->records()) done.insert(r.run_id);
  LineLog log(*p.sink, "");
  for (const PlannedMachine& m : p.plan.machines) {
    for (size_t i = m.first_run; i < m.first_run + m.run_count; ++i) {
      const PlannedRun& run = p.plan.runs[i];
      if (done.count(run.run_id)) continue;
      RunRecord r;
      r.run_id = run.run_id;
      r.target = ToString(m.target);
      r.accel = m.target == TargetKind::BareMetal ? "host" : ToString(p.accel.accel);
      r.machine = m.target == TargetKind::BareMetal ? "" : "machine-" + m.label;
      r.host_name = "none";
      r.job = run.job;
      r.params = run.params;
      r.status = RunStatus::Skipped;
      r.error = kInterruptedBeforeItRan;
      log << "  " << r.run_id << ": skipped (interrupted)\n";
      p.results->Append(r);
    }
  }
}

// The measured runs' IO phases and the wall time so far, into the manifest and `outcome`.
void RecordEfficiency(PreparedScenario& p, RunOutcome& outcome) {
  for (const RunRecord& r : outcome.records)
    if (r.result) (r.status == RunStatus::Warmup ? outcome.warmup_s : outcome.io_phase_s) +=
        r.result->runtime_s;
  outcome.wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - p.started).count();
  p.manifest->SetEfficiency(outcome.io_phase_s, outcome.warmup_s, outcome.wall_s);
}

}  // namespace

std::string GuestImageKey(const MachineConfig& machine) {
  return machine.kernel + "\n" + machine.modules_dir +
         (machine.image.empty() ? "" : "\n" + machine.image + "\n" + machine.initrd);
}

std::unique_ptr<PreparedScenario> PrepareRun(const RunOptions& options, const RunDeps& deps,
                                             std::ostream& out) {
  auto p = std::make_unique<PreparedScenario>();
  p->options = options;
  p->scenario = LoadScenarioFor(options);
  p->hosts = HostsFor(options);
  deps.check_inputs(p->scenario, options);  // the same checks as --dry-run
  // The out directory is claimed only once the input is known to be good.
  p->claim = std::make_shared<OutDirClaim>(options.out_dir, out);
  p->results.emplace(options.out_dir);
  p->sink.emplace(out);
  p->plan = PlanScenario(p->scenario);
  p->session = SessionId(std::time(nullptr), getpid());
  p->manifest.emplace(*p->results, InitialManifest(*p));
  if (options.until_conclusive) {
    ResultsDir* results = &*p->results;
    p->rounds = std::make_unique<RoundGate>(
        UntilConclusiveOf(options, p->scenario), p->plan, p->scenario.expanded,
        [results] { return results->records(); }, *p->manifest, *p->sink);
  }
  p->work.emplace(options.work_dir, "storbed-work-");
  // A local libvirt daemon uses the backing in place, from QEMU running as its own user
  // (libvirt-qemu): that user must be able to pass through the (0700) work directory.
  for (const auto& h : p->hosts)
    if (h.backend == HostBackend::Libvirt)
      std::filesystem::permissions(
          p->work->path(), std::filesystem::perms::others_exec | std::filesystem::perms::group_exec,
          std::filesystem::perm_options::add);
  for (const auto& j : p->scenario.jobs) {
    p->directions.reads |= j.rw != Direction::Write;
    p->directions.writes |= j.rw != Direction::Read;
  }
  MakeBackingLeases(*p);
  LineLog log(*p->sink, "");
  PrepareMachines(*p, deps, log);
  return p;
}

std::vector<HostStatus> ExecuteRun(PreparedScenario& p, const RunDeps& deps) {
  // Interleaved rounds are a comparison only when they run one at a time, in plan order,
  // on one host: the first, with one slot.
  const bool interleaved = p.scenario.order == RunOrder::Interleaved;
  // One PCI device cannot be under bare metal and in a guest at once: plan order, one slot.
  const bool passthrough = !p.scenario.disk.passthrough.empty();
  size_t slots = 0;
  for (const auto& h : p.hosts) slots += h.max_guests;
  const bool sequential = slots == 1 || interleaved || passthrough;
  if (interleaved && slots > 1)
    LineLog(*p.sink, "") << "order interleaved: one machine at a time on host "
                         << p.hosts.front().name << " (max_guests and other hosts unused)\n";
  auto image_for = [&p](const MachineConfig& m) -> const GuestImage& {
    return p.images.at(GuestImageKey(m));  // PrepareRun made every one
  };
  // Whoever reads stderr sees how far the run is (--quiet: nobody).
  Progress progress(p.options.quiet ? ProgressMode::Quiet : ProgressModeFor(STDERR_FILENO),
                    *p.sink, p.plan.runs.size(),
                    PlanDryRun(p.scenario, ToString(p.accel.accel)).estimate_s,
                    [&p] { return p.results->size(); });
  PreparedRun prepared{p.scenario,  p.plan,    p.options, *p.results, *p.manifest,       *p.sink,
                       *p.backings, image_for, p.accel,   p.hosts,    p.hosts.size() > 1,
                       &progress,   p.rounds.get()};
  PlanExecutor executor(prepared,
                        [&](const RunHost& h) { return deps.make_backend(h, p.session); });
  if (!sequential) PrepareBackendsForThreads(p.hosts);
  std::vector<ScheduledHost> scheduled;
  for (const auto& h : p.hosts)
    scheduled.push_back({h.name, interleaved || passthrough ? 1 : h.max_guests});
  if (interleaved || passthrough) scheduled.resize(std::min<size_t>(scheduled.size(), 1));
  try {
    std::vector<HostStatus> status = RunSchedule(
        sequential ? UnitsInPlanOrder(p.plan) : GroupUnitsForHosts(p.plan, p.scenario), scheduled,
        executor);
    executor.Finish();
    status.resize(p.hosts.size(), HostStatus::Unused);
    return status;
  } catch (const InterruptedError&) {
    if (p.rounds) p.rounds->Finish(/*interrupted=*/true);
    MarkPendingSkipped(p);
    p.manifest->MarkInterrupted();
    p.manifest->Finish(UtcTimestamp(), p.results->Failures(), nullptr);
    throw;
  } catch (...) {
    p.manifest->MarkInterrupted();
    p.manifest->Finish(UtcTimestamp(), p.results->Failures(), nullptr);
    throw;
  }
}

RunOutcome FinishRun(PreparedScenario& p, const std::vector<HostStatus>& status) {
  if (p.rounds) p.rounds->Finish(/*interrupted=*/false);
  std::vector<std::string> statuses;
  for (const auto s : status) statuses.push_back(ToString(s));
  p.manifest->Finish(UtcTimestamp(), p.results->Failures(),
                     statuses.empty() ? nlohmann::json() : DescribeHosts(p.hosts, statuses));
  RunOutcome outcome;
  outcome.records = p.results->records();
  outcome.failures = p.results->Failures();
  outcome.out_dir_claim = p.claim;
  RecordEfficiency(p, outcome);
  if (!p.results->FlushUnsaved()) outcome.unsaved = p.results->UnsavedError();
  return outcome;
}

RunOutcome RunScenarioWith(const RunOptions& options, const RunDeps& deps, std::ostream& log) {
  const std::unique_ptr<PreparedScenario> run = PrepareRun(options, deps, log);
  try {
    return FinishRun(*run, ExecuteRun(*run, deps));
  } catch (const InterruptedError&) {
    // ExecuteRun finished the manifest and marked what did not run.
    RunOutcome outcome;
    outcome.records = run->results->records();
    outcome.failures = run->results->Failures();
    outcome.interrupted = true;
    outcome.out_dir_claim = run->claim;
    RecordEfficiency(*run, outcome);
    if (!run->results->FlushUnsaved()) outcome.unsaved = run->results->UnsavedError();
    return outcome;
  }
}

}  // namespace storbed
