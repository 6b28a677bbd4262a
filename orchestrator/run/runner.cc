#include "run/runner.h"

#include <unistd.h>

#include <atomic>
#include <ctime>
#include <filesystem>
#include <map>
#include <ostream>

#include "backend/accel.h"
#include "backend/backend_qemu.h"
#include "backend/disk_driver.h"
#include "backend/interrupt.h"
#include "images/filesystem_image.h"
#include "images/image_builder.h"
#include "images/kernel_locator.h"
#include "run/backing_leases.h"
#include "run/fio_import.h"
#include "run/host_backend.h"
#include "run/host_info.h"
#include "run/line_log.h"
#include "run/manifest.h"
#include "run/plan_executor.h"
#include "run/run_hosts.h"
#include "run/scheduler.h"
#include "run/temp_dir.h"
#include "run/work_groups.h"

namespace storbed {
namespace {

GuestKernel KernelFor(const MachineConfig& machine) {
  if (machine.kernel == "host") return FindNewestHostKernel();
  std::string modules = machine.modules_dir;
  if (modules.empty()) {
    // A Debian-style name vmlinuz-<release> points at /lib/modules/<release>.
    const std::string base = std::filesystem::path(machine.kernel).filename();
    const std::string prefix = "vmlinuz-";
    if (base.rfind(prefix, 0) != 0)
      throw ScenarioError("machine.modules_dir: required when machine.kernel (" + machine.kernel +
                          ") is not named vmlinuz-<release>");
    modules = "/lib/modules/" + base.substr(prefix.size());
  }
  return KernelFromPaths(machine.kernel, modules);
}

std::optional<Accel> ForcedAccel(const std::string& accel) {
  if (accel == "auto" || accel.empty()) return std::nullopt;
  return ParseAccel(accel);
}

// Boots the image under KVM and waits briefly for the agent: a stock kernel can hang
// under a /dev/kvm that opens but does not work, so flags alone are not enough.
KvmGuestProbe MakeKvmProbe(const GuestImage& image, const std::string& dir) {
  return [image, dir](std::string* why) {
    MachineSpec spec;
    spec.name = "kvm-probe";
    spec.vcpus = 1;
    spec.memory_mib = 256;
    spec.accel = Accel::Kvm;
    spec.kernel = image.kernel_path;
    spec.initrd = image.initrd_path;
    spec.cmdline = kGuestCmdline;
    spec.run_dir = dir;
    try {
      QemuBackend backend;
      auto machine = backend.Start(spec, std::chrono::seconds(30));
      machine->Shutdown();
      return true;
    } catch (const InterruptedError&) {
      throw;
    } catch (const std::exception& e) {
      *why = std::string("a probe guest under KVM did not answer: ") + e.what();
      return false;
    }
  };
}

// The backing of one disk combination: nothing (null-co), the user's file or device, a
// filesystem image with its test file, or a filled raw file; qcow2 is converted from it.
Backing MakeBacking(const DiskConfig& disk, const std::string& file, bool reads, bool writes) {
  if (!DriverHasStorage(disk.driver)) {
    Backing b;
    b.size_bytes = disk.size_bytes;
    b.how = "none: QEMU's null-co driver completes every request after " +
            std::to_string(disk.null_latency_ns) + " ns without storage";
    b.null_co = true;
    return b;
  }
  if (!disk.backing.empty()) {
    Backing b = UseExistingBacking(disk.backing, reads);
    // Validation refuses writes on a /dev path; this catches a block device elsewhere.
    if (b.block_device && writes && !disk.allow_writes)
      throw ScenarioError("disk.backing: " + disk.backing +
                          " is a block device and the scenario has write jobs; set "
                          "disk.allow_writes true if overwriting it is meant");
    return b;
  }
  Backing b;
  if (disk.filesystem.empty()) {
    b = CreateFilledBacking(file, disk.size_bytes);
  } else {
    const FilesystemImage image = CreateFilesystemImage(
        {.image_path = file,
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

}  // namespace

Scenario LoadScenarioFor(const RunOptions& options) {
  if (options.fio_path.empty()) return LoadScenario(options.scenario_path);
  return ImportFioFile(options.fio_path, ParseFioTargets(options.fio_targets)).scenario;
}

RunOutcome RunScenario(const RunOptions& options, std::ostream& out) {
  const Scenario scenario = LoadScenarioFor(options);
  const std::vector<RunHost> hosts = HostsFor(options);
  ResultsDir results(options.out_dir);
  LogSink sink(out);
  LineLog log(sink, "");
  const RunPlan plan = PlanScenario(scenario);
  nlohmann::json planned = nlohmann::json::array();
  for (const auto& m : plan.machines)
    for (size_t i = m.first_run; i < m.first_run + m.run_count; ++i)
      planned.push_back({{"run_id", plan.runs[i].run_id},
                         {"machine", m.label},
                         {"params", plan.runs[i].params}});
  const std::string session = SessionId(std::time(nullptr), getpid());
  Manifest manifest(
      results,
      {{"host", DescribeHost()},
       {"scenario_file", options.fio_path.empty() ? options.scenario_path : options.fio_path},
       {"scenario", scenario.expanded},
       {"order", {{"order", scenario.order == RunOrder::Random ? "random" : "sequential"},
                  {"seed", scenario.order_seed}}},
       {"plan", planned},
       {"session", session},
       {"hosts", DescribeHosts(hosts, {})},
       {"host_failures", nlohmann::json::array()},
       {"started_at", UtcTimestamp()},
       {"machines", nlohmann::json::object()}});

  TempDir work(options.work_dir, "storbed-work-");
  // A local libvirt daemon uses the backing in place, from QEMU running as its own user
  // (libvirt-qemu): that user must be able to pass through the (0700) work directory.
  for (const auto& h : hosts)
    if (h.backend == "libvirt") std::filesystem::permissions(
        work.path(), std::filesystem::perms::others_exec | std::filesystem::perms::group_exec,
        std::filesystem::perm_options::add);
  bool reads = false, writes = false;
  for (const auto& j : scenario.jobs) {
    reads |= j.rw != Direction::Write;
    writes |= j.rw != Direction::Read;
  }
  // One backing per distinct disk size or backing path (most scenarios have one), and a
  // copy for each further machine that runs at the same time (backing_leases.h).
  std::atomic<size_t> files{0};
  BackingLeases backings([&](const DiskConfig& disk, size_t copy) {
    if (DriverHasStorage(disk.driver))
      LineLog(sink, "") << "preparing backing (" << (disk.image_bytes() >> 20) << " MiB"
                        << (disk.filesystem.empty() ? "" : " " + disk.filesystem) << ")...\n";
    const size_t n = files++;
    const std::string file =
        work.path() + "/backing" + (n == 0 ? "" : "-" + std::to_string(n)) + ".raw";
    Backing b = MakeBacking(disk, file, reads, writes);
    const nlohmann::json entry = {{"path", b.path},     {"size_bytes", b.size_bytes},
                                  {"how", b.how},       {"format", b.format},
                                  {"filesystem", b.filesystem}, {"null_co", b.null_co}};
    const std::string key = BackingLeases::KeyOf(disk);
    manifest.Update([&](nlohmann::json& m) {
      if (copy > 0) {
        m["backing_copies"].push_back({{"for", key}, {"path", b.path}});
        return;
      }
      m["backings"][key] = entry;
      if (n == 0) m["backing"] = entry;
    });
    return b;
  });
  backings.Shared(scenario.disk);

  bool needs_guest = false;
  for (const auto t : scenario.targets) needs_guest |= t != TargetKind::BareMetal;

  // One guest image per distinct kernel (a kernel list makes an A/B matrix).
  std::map<std::string, GuestImage> images;
  auto image_for = [&](const MachineConfig& machine) -> const GuestImage& {
    const std::string key = machine.kernel + "\n" + machine.modules_dir;
    auto it = images.find(key);
    if (it != images.end()) return it->second;
    ImageRequest request;
    request.kernel = KernelFor(machine);
    request.agent_path = options.agent_path;
    request.cache_dir = options.image_cache_dir;
    GuestImage image = BuildGuestImage(request);
    log << DescribeImage(image);
    const nlohmann::json entry = {{"kernel", image.kernel_path},
                                  {"kernel_release", image.kernel_release},
                                  {"initrd", image.initrd_path},
                                  {"content_hash", image.content_hash},
                                  {"modules", image.modules},
                                  {"builtin", image.builtin},
                                  {"from_cache", image.from_cache}};
    const bool first = images.empty();
    manifest.Update([&](nlohmann::json& m) {
      m["guest_images"][key] = entry;
      if (first) m["guest_image"] = entry;
    });
    return images.emplace(key, std::move(image)).first->second;
  };
  AccelDecision accel;
  if (needs_guest) {
    const GuestImage& image = image_for(scenario.machine);
    const std::string accel_choice =
        options.accel.empty() ? scenario.machine.accel : options.accel;
    // Decided here, for every host: inventory hosts are expected to be alike (--accel
    // overrides when they are not).
    RealAccelHost host(MakeKvmProbe(image, results.File("kvm-probe")));
    accel = DetectAccel(host, ForcedAccel(accel_choice));
    log << "accelerator: " << ToString(accel.accel) << " (" << accel.reason << ")\n";
    const std::string qemu_version = QemuVersionOf("qemu-system-x86_64");
    manifest.Update([&](nlohmann::json& m) {
      m["accel"] = {{"accel", ToString(accel.accel)}, {"reason", accel.reason}};
      m["qemu_version"] = qemu_version;
    });
  }
  // Every image and each disk's first backing are made now: threads only look images up.
  for (const PlannedMachine& m : plan.machines) {
    DiskConfig disk = scenario.machines[m.machine].disk;
    if (m.target == TargetKind::BareMetal) disk.format = "raw";  // as PlanExecutor leases it
    backings.Shared(disk);
    if (m.target != TargetKind::BareMetal) image_for(scenario.machines[m.machine].machine);
  }

  size_t slots = 0;
  for (const auto& h : hosts) slots += h.max_guests;
  const bool sequential = slots == 1;
  PreparedRun prepared{scenario, plan,      options, results, manifest, sink,
                       backings, image_for, accel,   hosts,   hosts.size() > 1};
  PlanExecutor executor(prepared, [&](const RunHost& h) { return MakeHostBackend(h, session); });
  if (!sequential) PrepareBackendsForThreads(hosts);
  std::vector<ScheduledHost> scheduled;
  for (const auto& h : hosts) scheduled.push_back({h.name, h.max_guests});

  auto finish = [&](const std::vector<std::string>& statuses) {
    manifest.Update([&](nlohmann::json& m) {
      m["finished_at"] = UtcTimestamp();
      m["failures"] = results.Failures();
      if (!statuses.empty()) m["hosts"] = DescribeHosts(hosts, statuses);
    });
  };
  std::vector<HostStatus> status;
  try {
    status = RunSchedule(sequential ? UnitsInPlanOrder(plan) : GroupUnitsForHosts(plan, scenario),
                         scheduled, executor);
  } catch (...) {
    manifest.Update([](nlohmann::json& m) { m["interrupted"] = true; });
    finish({});
    throw;
  }
  std::vector<std::string> statuses;
  for (const auto s : status) statuses.push_back(ToString(s));
  finish(statuses);
  RunOutcome outcome;
  outcome.records = results.records();
  outcome.failures = results.Failures();
  return outcome;
}

}  // namespace storbed
