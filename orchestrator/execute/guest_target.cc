#include "execute/guest_target.h"

#include <chrono>
#include <functional>
#include <ostream>
#include <thread>

#include "analysis/durability.h"
#include "analysis/ladder_builder.h"
#include "backend/bus_table.h"
#include "backend/child_process.h"
#include "backend/disk_driver.h"
#include "backend/interrupt.h"
#include "execute/boot_breakdown.h"
#include "execute/foreign_image.h"
#include "execute/guest_trace.h"
#include "execute/host_info.h"
#include "execute/machine_loss.h"
#include "execute/nocloud_seed.h"
#include "execute/progress.h"
#include "execute/round_gate.h"
#include "execute/temp_dir.h"
#include "images/file_digest.h"
#include "libvirt/virt_handles.h"
#include "passthrough/vfio_binding.h"
#include "sampling/clock_sync.h"
#include "sampling/job_sampler.h"

namespace storbed {
namespace {

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// The guest disk with `serial` whose name has the bus row's prefix (/dev/vdX,
// /dev/nvme0n1, /dev/sdX): the agent reads each disk's serial from sysfs or its VPD page.
// A passed-through controller keeps its own serial, which the host read before handover.
std::string DeviceWithSerial(const HelloReply& hello, Bus bus, const std::string& serial,
                             std::string* seen) {
  const std::string prefix = RowOf(bus).guest_dev_prefix;
  for (const auto& d : hello.devices) {
    *seen += (seen->empty() ? "" : ", ") + d.name + "(serial '" + d.serial + "')";
    if (d.serial == serial && d.name.rfind(prefix, 0) == 0) return d.path;
  }
  return "";
}

// The agent's clock against ours, from a few hello round trips just before the job, so
// host samples can be cut to the job's IO phase as the agent timed it.
ClockOffset MeasureClockOffset(Machine& machine, const std::function<void()>& check) {
  return EstimateClockOffset(
      [&] {
        const Message reply =
            machine.Agent().Call(HelloRequest{}, std::chrono::seconds(30), check);
        if (const auto* hello = std::get_if<HelloReply>(&reply)) return hello->monotonic_ns;
        throw std::runtime_error("agent answered '" + MessageType(reply) + "' to hello");
      },
      5);
}

// The host's view of the job (QEMU block layer, virtqueues, host device, QEMU threads),
// cut to the agent's IO phase, makes the ladder and the durability check, lets
// `before_store` add to it (the trace's figures), then stores the record
// (StoreFinishedRecord).
void AddHostLayers(RunContext& ctx, RunRecord& record, const JobSampler& sampler,
                   const ClockOffset& offset, const DiskSpec& disk,
                   const std::function<void(RunRecord&)>& before_store) {
  const JobResult& r = *record.result;
  const HostLayers host = sampler.Summarize(AgentToHostNs(offset, r.io_start_ns),
                                            AgentToHostNs(offset, r.io_end_ns));
  const GuestDiskShape shape{.has_virtqueues = HasVirtqueues(disk.bus),
                             .queue_size = disk.queue_size,
                             .num_queues = disk.num_queues,
                             .aio_threads = disk.aio == Aio::Threads};
  record.ladder = GuestLadder(r, shape, host.virtqueue, host.qemu_block, host.host_device);
  Durability durability = CheckDurability(record.job, r, host.qemu_flushes, host.host_flushes);
  if (disk.no_flush)
    durability = MarkFlushesDropped(durability, "QEMU runs the disk with cache.no-flush=on");
  record.durability = durability;
  record.host = {{"clock_offset_ns", offset.offset_ns},
                 {"clock_uncertainty_ns", offset.uncertainty_ns},
                 {"sample_period_ms", ctx.machine.sample_period_ms},
                 {"virtqueue_sample_ms", ctx.machine.virtqueue_sample_ms},
                 {"qemu_thread_cpu", host.qemu_thread_cpu},
                 {"warnings", host.warnings}};
  record.host.update(host.figures);  // the samplers' further figures ("host_cpu")
  if (before_store) before_store(record);
  StoreFinishedRecord(ctx, record, host.timelines);
}

}  // namespace

MachineSpec GuestMachineSpec(const RunContext& ctx, TargetKind target, const std::string& label,
                             const GuestImage& image, Accel accel, const std::string& run_dir) {
  const DiskConfig& disk = ctx.disk;
  MachineSpec spec;
  // The label, not the target: two machines of one target ("virtio-blk-m1", "-m2") may
  // run at once on one libvirt host, and the domain name is made from this.
  spec.name = ctx.scenario.name + "-" + label;
  spec.vcpus = ctx.machine.vcpus;
  spec.memory_mib = ctx.machine.memory_bytes >> 20;
  spec.accel = accel;
  spec.kernel = image.boot_kernel_path.empty() ? image.kernel_path : image.boot_kernel_path;
  spec.initrd = image.initrd_path;
  // panic=-1 with QEMU's -no-reboot turns a guest panic into a QEMU exit we notice at once.
  spec.cmdline = kGuestCmdline;
  spec.run_dir = run_dir;
  if (!ctx.machine.image.empty()) {
    // The image's own kernel and command line; the overlay is made when the machine boots.
    spec.cmdline = ctx.machine.append;
    // A bare name is looked up in PATH, as the input checks did.
    const std::string agent = ProgramPath(ctx.options.agent_path);
    spec.foreign =
        ForeignRoot{.overlay = "",
                    .agent_binary = agent.empty() ? ctx.options.agent_path : agent,
                    .push = ParseAgentPushWay(ctx.machine.agent_push),
                    .seed_image = "",
                    .agent_disk = ""};
  }
  DiskSpec d;
  d.id = "d0";
  if (!target.bus) throw std::logic_error("GuestMachineSpec: the bare-metal target has no guest");
  d.bus = *target.bus;
  d.backing = ctx.backing.path;
  d.format = ctx.backing.format;
  d.driver = ctx.backing.block_device ? kDriverHostDevice : kDriverFile;
  if (ctx.backing.null_co) {
    d.driver = kDriverNullCo;
    d.null_size = disk.size_bytes;
    d.null_latency_ns = disk.null_latency_ns;
  }
  d.num_queues = disk.num_queues;
  d.queue_size = disk.queue_size;
  d.iothread = disk.iothread && HasVirtqueues(d.bus);  // the scenario's field is for all buses
  d.aio = disk.aio;
  d.cache = disk.cache;
  d.request_merging = disk.request_merging;
  d.no_flush = disk.no_flush;
  d.serial = kTestDiskSerial;
  d.nvme_max_ioqpairs = disk.num_queues;
  if (!disk.passthrough.empty()) {
    d.vfio_host = disk.passthrough;
    // The host's namespace device is gone while the guest has the controller: no
    // backing for the host samplers to watch.
    d.backing.clear();
    d.serial = "";  // the device's own, known once it is bound (GuestTarget::Boot)
  }
  spec.disks.push_back(d);
  return spec;
}

// A foreign machine's disposable root: the image's overlay in a private work directory
// removed with this object (after the machine, which is declared later), and the image's
// sha256 before the boot, to compare with the one after.
// With the cloud-init way offered, its seed and agent disks live there too. Outside the
// anonymous namespace: GuestTarget::Holdings holds one.
struct ForeignRootDisk {
  ForeignRootDisk(const RunContext& ctx, const std::string& image, ForeignRoot& root,
                  const std::string& machine_name)
      : dir(ctx.options.work_dir, "storbed-work-"),
        path(image),
        format(ForeignImageFormat(image)),
        overlay(dir.path() + "/root-overlay.qcow2"),
        sha256_before(FileSha256(image)) {
    CreateOverlay(image, format, overlay);
    root.overlay = overlay;
    if (root.push == AgentPushWay::Qga) return;
    // The directory's random suffix makes the instance id new for every machine.
    const NoCloudSeed seed = MakeNoCloudSeed(
        dir.path(), root.agent_binary,
        machine_name + "-" + dir.path().substr(dir.path().rfind('-') + 1));
    root.seed_image = seed.seed_image;
    root.agent_disk = seed.agent_disk;
  }
  TempDir dir;
  std::string path, format, overlay, sha256_before;
};

namespace {

// What a foreign guest is, as its own OS set it up before the agent changed anything: the
// hello comes before any prepare or run, so the disks' queue settings are the guest's.
nlohmann::json GuestFacts(const HelloReply& hello, const std::string& test_serial) {
  nlohmann::json disks = nlohmann::json::array();
  for (const auto& d : hello.devices)
    if (d.serial == test_serial)
      disks.push_back({{"name", d.name},
                       {"serial", d.serial},
                       {"scheduler", d.scheduler},
                       {"read_ahead_kb", d.read_ahead_kb}});
  nlohmann::json rules = nlohmann::json::array();
  for (const auto& r : hello.queue_rules)
    rules.push_back({{"file", r.file}, {"line", r.line}, {"text", r.text}});
  std::string set_by = "the kernel's defaults: no udev rule or tuned profile of the guest sets "
                       "a scheduler, read-ahead or nr_requests";
  if (!rules.empty() || !hello.tuned_profile.empty()) {
    set_by = "the guest's own configuration:";
    for (const auto& r : hello.queue_rules)
      set_by += " udev rule " + r.file + ":" + std::to_string(r.line) + ";";
    if (!hello.tuned_profile.empty()) set_by += " tuned profile " + hello.tuned_profile + ";";
    set_by.pop_back();
  }
  return {{"os_pretty_name", hello.os_release.pretty_name},
          {"os_version_id", hello.os_release.version_id},
          {"kernel_release", hello.kernel_release},
          {"benchmark_disks", disks},
          {"queue_rules", rules},
          {"tuned_profile", hello.tuned_profile},
          {"queue_settings_from", set_by}};
}

// The machine's manifest entry: how it was started and what the guest reported.
void RecordMachine(RunContext& ctx, const std::string& label, Machine& machine,
                   const GuestImage& image, const AccelDecision& accel, const Backend& backend,
                   double boot_s, const BootBreakdown& boot, const ForeignRootDisk* foreign,
                   const std::string& test_serial) {
  const HelloReply& hello = machine.Hello();
  const MachineFacts facts = machine.Facts();
  nlohmann::json entry = {
      {"argv", facts.argv},
      {"qemu_version", facts.qemu_version},
      {"accel", ToString(accel.accel)},
      {"guest_kernel", hello.kernel_release},
      {"guest_kernel_sha256", image.kernel_sha256},
      {"guest_kernel_boot", image.boot_kernel_note},
      {"guest_kernel_config_sha256",
       image.kernel_config_sha256.empty() ? "not found" : image.kernel_config_sha256},
      {"agent_version", hello.agent_version},
      {"devices", hello.devices},
      {"modules_loaded", hello.modules_loaded},
      {"console_log", "machine-" + label + "/console.log"},
      {"boot_s", boot_s},
      {"boot", BootJson(boot)},
      {"started_at", UtcTimestamp()},
      {"host", ctx.host.name},
      {"backend", backend.Name()},
      {"backend_details", facts.backend_details},
      {"agent_push", facts.agent_push}};
  if (foreign) {
    entry["image"] = {{"path", foreign->path},
                      {"format", foreign->format},
                      {"sha256", foreign->sha256_before},
                      {"overlay", "a qcow2 overlay in storbed's work directory, deleted after the run"}};
    entry["guest_facts"] = GuestFacts(hello, test_serial);
  }
  ctx.manifest.SetMachine(label, entry);
}

// The guest disk's logical block size (NVMe's LBA), 512 when the hello did not say.
uint32_t LogicalBlockSize(Machine& machine, const std::string& device) {
  for (const BlockDeviceInfo& d : machine.Hello().devices)
    if (d.path == device && d.logical_block_size > 0) return d.logical_block_size;
  return 512;
}

// One job on the booted guest, with the host samplers beside it; the record goes to the
// results, failed or not. When the machine went away during it: why, for the runs after.
std::optional<MachineLoss> RunOnGuest(RunContext& ctx, Machine& machine, const DiskSpec& disk, RunRecord record,
                const PlannedRun& run, const std::function<void()>& check) {
  const std::string& device = record.device;
  ctx.log << "  " << run.run_id << " on " << device << "...\n";
  const auto start = Clock::now();
  try {
    const ClockOffset offset = MeasureClockOffset(machine, check);
    JobSamplerOptions sampling;
    sampling.period = std::chrono::milliseconds(ctx.machine.sample_period_ms);
    sampling.fast_period = std::chrono::milliseconds(ctx.machine.virtqueue_sample_ms);
    JobSampler sampler(SourceFromMachine(machine, disk), sampling);
    // job.trace: QEMU's events and the host device's trace around the job (guest_trace.h).
    std::optional<GuestJobTrace> trace;
    if (record.job.trace)
      trace.emplace(ctx, machine, disk, record.job, run.run_id, LogicalBlockSize(machine, device));
    sampler.Start();
    const Message reply =
        machine.Agent().Call(RunRequest{record.job}, JobReplyTimeout(record.job), check);
    sampler.Stop();
    if (trace) trace->Stop();
    record.wall_s = SecondsSince(start);
    if (const auto* r = std::get_if<ResultReply>(&reply)) {
      record.result = r->result;
      if (run.warmup) record.status = RunStatus::Warmup;
      AddHostLayers(ctx, record, sampler, offset, disk, [&](RunRecord& rec) {
        if (!trace) return;
        try {
          trace->Finish(rec, offset, check);
        } catch (const InterruptedError&) {
          throw;
        } catch (const std::exception& e) {
          // The measurement stands; only the trace's figures are missing, and why.
          rec.host["warnings"].push_back(std::string("trace: ") + e.what());
          ctx.log << "    warning: trace: " << e.what() << "\n";
        }
      });  // stores the record
      ctx.log << "    " << r->result.mib_s << " MiB/s, " << r->result.iops << " IOPS\n";
    } else if (const auto* e = std::get_if<ErrorReply>(&reply)) {
      RecordFailure(ctx, record, RunStatus::Failed, "agent error: " + e->message);
    } else {
      RecordFailure(ctx, record, RunStatus::Failed,
                    "agent answered '" + MessageType(reply) + "' to a run request");
    }
  } catch (const InterruptedError&) {
    record.wall_s = SecondsSince(start);
    RecordFailure(ctx, record, RunStatus::Failed, InterruptedRunText());
    throw;
  } catch (const std::exception& e) {
    record.wall_s = SecondsSince(start);
    if (Interrupted()) {  // the signal may have reached QEMU too and closed the link first
      RecordFailure(ctx, record, RunStatus::Failed, InterruptedRunText());
      throw InterruptedError();
    }
    MachineLoss loss = ExplainMachineLoss(machine, e);
    RecordFailure(ctx, record, RunStatus::Failed, loss.record_text);
    return loss;
  }
  return std::nullopt;
}

}  // namespace

namespace {

// Runs last on every way out of a foreign machine's GuestTarget, after the machine is gone:
// the image must be what it was before the boot.
void CheckForeignImage(RunContext& ctx, const std::string& label, const ForeignRootDisk& foreign) {
  try {
    const std::string after = FileSha256(foreign.path);
    ctx.manifest.UpdateMachine(label, {{"image",
                                        {{"path", foreign.path},
                                         {"sha256", foreign.sha256_before},
                                         {"sha256_after", after},
                                         {"unchanged", after == foreign.sha256_before}}}});
    if (after != foreign.sha256_before)
      ctx.log << "  warning: the foreign image " << foreign.path
              << " changed during the run (sha256 " << foreign.sha256_before << " -> " << after
              << "): something else wrote it\n";
  } catch (const std::exception& e) {
    ctx.log << "  warning: cannot hash the foreign image after the run: " << e.what() << "\n";
  }
}

}  // namespace

// What must outlive the machine, declared before it so it goes after it: the VFIO binding
// (the device is on vfio-pci until the machine is gone, Ctrl-C included; its state file lies
// in a storbed-work-* dir, so `storbed cleanup` gives the device back after a SIGKILL) and
// a foreign image's overlay, whose image is checked last.
struct GuestTarget::Holdings {
  RunContext& ctx;
  std::string label;
  std::optional<TempDir> binding_dir;
  RealSysfsWriter sysfs;
  std::optional<VfioBinding> binding;
  std::optional<ForeignRootDisk> foreign;
  std::unique_ptr<Machine> machine;
  ~Holdings() {
    machine.reset();
    if (foreign) CheckForeignImage(ctx, label, *foreign);
  }
};

GuestTarget::GuestTarget(RunContext& ctx, const GuestTargetSetup& setup)
    : ctx_(ctx),
      target_(setup.target),
      label_(setup.label),
      machine_dir_("machine-" + setup.label),
      accel_(setup.accel),
      backend_(setup.backend),
      held_(new Holdings{ctx, setup.label, {}, {}, {}, {}, {}}) {}

GuestTarget::~GuestTarget() = default;

RunRecord GuestTarget::BaseRecord(const PlannedRun& run) const {
  RunRecord r;
  r.run_id = run.run_id;
  r.target = ToString(target_);
  r.accel = ToString(accel_.accel);
  r.machine = machine_dir_;
  r.host_name = ctx_.host.name;
  r.backend = backend_.Name();
  r.job = run.job;
  r.console_log = machine_dir_ + "/console.log";
  r.params = run.params;
  return r;
}

void GuestTarget::FailAll(const std::vector<PlannedRun>& runs, const std::string& why) {
  for (const auto& run : runs) RecordFailure(ctx_, BaseRecord(run), RunStatus::Failed, why);
}

std::unique_ptr<GuestTarget> GuestTarget::Boot(RunContext& ctx, const GuestTargetSetup& setup,
                                               const std::vector<PlannedRun>& runs) {
  std::unique_ptr<GuestTarget> g(new GuestTarget(ctx, setup));
  g->spec_ = GuestMachineSpec(ctx, setup.target, setup.label, setup.image, setup.accel.accel,
                              ctx.results.File(g->machine_dir_));
  // A machine kept across rounds runs the same job list in each: the first round's runs
  // say whether QEMU must be able to trace.
  for (const PlannedRun& run : runs) g->spec_.qemu_trace |= run.job.trace;
  std::optional<std::string> failed = g->HandOverDevice();
  if (!failed) failed = g->MakeForeignRoot();
  if (!failed) failed = g->StartMachine(setup.image);
  if (!failed) failed = g->FindTestDisk();
  if (failed) {
    g->FailAll(runs, *failed);
    g->Shutdown();  // a machine that booted without the disk; nothing before it booted
    return nullptr;
  }
  return g;
}

std::optional<std::string> GuestTarget::HandOverDevice() {
  if (ctx_.disk.passthrough.empty()) return std::nullopt;
  Holdings& h = *held_;
  ctx_.log << "binding PCI device " << ctx_.disk.passthrough << " to vfio-pci...\n";
  try {
    h.binding_dir.emplace(ctx_.options.work_dir, "storbed-work-");
    h.binding.emplace(PciSysfs(ctx_.options.passthrough_sources.sysfs_root), h.sysfs,
                      ctx_.disk.passthrough, h.binding_dir->path());
  } catch (const std::exception& e) {
    return std::string("the device was not handed over: ") + e.what();
  }
  spec_.disks[0].serial = h.binding->record().serial;
  return std::nullopt;
}

std::optional<std::string> GuestTarget::MakeForeignRoot() {
  if (!spec_.foreign) return std::nullopt;
  try {
    held_->foreign.emplace(ctx_, ctx_.machine.image, *spec_.foreign, spec_.name);
  } catch (const std::exception& e) {
    return std::string("the foreign image's overlay or seed was not made: ") + e.what();
  }
  return std::nullopt;
}

std::optional<std::string> GuestTarget::StartMachine(const GuestImage& image) {
  Holdings& h = *held_;
  if (ctx_.progress) ctx_.progress->Booting(label_);
  ctx_.log << "booting " << ToString(target_) << " guest (" << ToString(accel_.accel) << ", "
           << spec_.vcpus << " vCPU, " << spec_.memory_mib << " MiB)...\n";
  const auto boot_start = Clock::now();
  try {
    h.machine = backend_.Start(
        spec_, std::chrono::seconds(static_cast<int64_t>(ctx_.machine.boot_timeout_s)));
  } catch (const InterruptedError&) {
    throw;
  } catch (const LibvirtError&) {
    throw;  // the host failed, not the guest: the caller moves the runs to another host
  } catch (const std::exception& e) {
    return std::string("the guest did not boot: ") + e.what();
  }
  Machine& machine = *h.machine;
  const double boot_s = SecondsSince(boot_start);
  const HelloReply& hello = machine.Hello();
  // The backend's own time from QEMU start; boot_s also counts `qemu --version` and the
  // run directory before it.
  const BootBreakdown boot =
      BreakDownBoot(machine.Facts().start_to_hello_s.value_or(boot_s), hello.boot);
  ctx_.log << "  agent " << hello.agent_version << " up on guest kernel " << hello.kernel_release
           << " after " << boot_s << " s; boot " << DescribeBoot(boot) << "\n";
  RecordMachine(ctx_, label_, machine, image, accel_, backend_, boot_s, boot,
                h.foreign ? &*h.foreign : nullptr, spec_.disks[0].serial);
  // From hello on, the agent sends heartbeats while it works: a silence is a hang.
  machine.Agent().SetSilenceLimit(kAgentSilenceLimit);
  return std::nullopt;
}

std::optional<std::string> GuestTarget::FindTestDisk() {
  std::string seen;
  const Bus bus = spec_.disks[0].bus;
  device_ = DeviceWithSerial(held_->machine->Hello(), bus, spec_.disks[0].serial, &seen);
  if (!device_.empty()) return std::nullopt;
  return std::string("the guest shows no ") + RowOf(bus).guest_dev_prefix + "* disk with serial " +
         spec_.disks[0].serial + " (devices: " + (seen.empty() ? "none" : seen) + ")";
}

bool GuestTarget::RunJobs(const std::vector<PlannedRun>& runs) {
  Machine& machine = *held_->machine;
  const auto check = [&] {
    ThrowIfInterrupted();
    machine.CheckAlive();
  };
  std::string lost_why;  // set when the machine went away: "<reason> during <run>"
  for (const auto& run : runs) {
    if (ctx_.rounds && !ctx_.rounds->Wanted(run)) continue;  // its round is not needed
    RunRecord record = BaseRecord(run);
    record.device = device_;
    record.job.target = device_;
    if (!lost_why.empty()) {
      RecordFailure(ctx_, record, RunStatus::Skipped, lost_why);
      continue;
    }
    if (ctx_.progress) ctx_.progress->RunStarted(run.run_id, run.job.runtime_s);
    if (auto loss = RunOnGuest(ctx_, machine, spec_.disks[0], std::move(record), run, check))
      lost_why = loss->skip_reason + " during " + run.run_id;
  }
  healthy_ = lost_why.empty();
  return healthy_;
}

void GuestTarget::Pause() {
  held_->machine->Qmp(kQmpPauseTimeout)("stop", nlohmann::json::object());
}

void GuestTarget::Resume() {
  held_->machine->Qmp(kQmpPauseTimeout)("cont", nlohmann::json::object());
}

void GuestTarget::Shutdown() noexcept {
  // An unhealthy machine is torn down by its destructor (SIGTERM, then SIGKILL).
  if (!healthy_ || !held_->machine) return;
  try {
    held_->machine->Shutdown();
  } catch (const std::exception& e) {
    ctx_.log << "  warning: " << ToString(target_) << " guest shutdown: " << e.what() << "\n";
  }
}

uint64_t GuestTarget::MemoryBytes() const { return uint64_t(spec_.memory_mib) << 20; }

void RunGuestTarget(RunContext& ctx, const GuestTargetSetup& setup,
                    const std::vector<PlannedRun>& runs) {
  std::unique_ptr<GuestTarget> guest = GuestTarget::Boot(ctx, setup, runs);
  if (!guest) return;
  guest->RunJobs(runs);
  guest->Shutdown();
}

}  // namespace storbed
