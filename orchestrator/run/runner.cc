#include "run/runner.h"

#include <filesystem>
#include <map>
#include <ostream>

#include "backend/accel.h"
#include "backend/backend_qemu.h"
#include "backend/interrupt.h"
#include "image/image_builder.h"
#include "image/kernel_locator.h"
#include "run/bare_metal_target.h"
#include "run/guest_target.h"
#include "run/host_info.h"
#include "run/run_context.h"
#include "run/temp_dir.h"

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
    spec.cmdline = "console=ttyS0 loglevel=4 panic=-1 rdinit=/init";
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

}  // namespace

RunOutcome RunScenario(const RunOptions& options, std::ostream& log) {
  const Scenario scenario = LoadScenario(options.scenario_path);
  ResultsDir results(options.out_dir);
  nlohmann::json manifest = {{"host", DescribeHost()},
                             {"scenario_file", options.scenario_path},
                             {"scenario", scenario.expanded},
                             {"started_at", UtcTimestamp()},
                             {"machines", nlohmann::json::object()}};
  results.WriteManifest(manifest);

  TempDir work(options.work_dir, "storbed-work-");
  bool reads = false;
  for (const auto& j : scenario.jobs) reads |= j.rw == Direction::Read;
  log << "preparing backing (" << (scenario.disk.size_bytes >> 20) << " MiB)...\n";
  const Backing backing = scenario.disk.backing.empty()
                              ? CreateFilledBacking(work.path() + "/backing.raw",
                                                    scenario.disk.size_bytes)
                              : UseExistingBacking(scenario.disk.backing, reads);
  manifest["backing"] = {
      {"path", backing.path}, {"size_bytes", backing.size_bytes}, {"how", backing.how}};

  const std::vector<PlannedRun> plan = PlanRuns(scenario);
  bool needs_guest = false;
  for (const auto t : scenario.targets) needs_guest |= t != TargetKind::BareMetal;

  std::optional<GuestImage> image;
  AccelDecision accel;
  if (needs_guest) {
    ImageRequest request;
    request.kernel = KernelFor(scenario.machine);
    request.agent_path = options.agent_path;
    request.cache_dir = options.image_cache_dir;
    image = BuildGuestImage(request);
    log << DescribeImage(*image);
    const std::string accel_choice =
        options.accel.empty() ? scenario.machine.accel : options.accel;
    RealAccelHost host(MakeKvmProbe(*image, results.File("kvm-probe")));
    accel = DetectAccel(host, ForcedAccel(accel_choice));
    log << "accelerator: " << ToString(accel.accel) << " (" << accel.reason << ")\n";
    manifest["accel"] = {{"accel", ToString(accel.accel)}, {"reason", accel.reason}};
    manifest["guest_image"] = {{"kernel", image->kernel_path},
                               {"kernel_release", image->kernel_release},
                               {"initrd", image->initrd_path},
                               {"content_hash", image->content_hash},
                               {"modules", image->modules},
                               {"builtin", image->builtin},
                               {"from_cache", image->from_cache}};
    manifest["qemu_version"] = QemuVersionOf("qemu-system-x86_64");
  }
  results.WriteManifest(manifest);

  RunOutcome outcome;
  RunContext ctx{scenario, options, results, log, backing, manifest, outcome.failures};
  QemuBackend backend;
  auto finish = [&] {
    manifest["finished_at"] = UtcTimestamp();
    manifest["failures"] = outcome.failures;
    results.WriteManifest(manifest);
  };
  try {
    for (const TargetKind target : scenario.targets) {
      std::vector<PlannedRun> runs;
      for (const auto& run : plan)
        if (run.target == target) runs.push_back(run);
      if (target == TargetKind::BareMetal)
        RunBareMetalTarget(ctx, runs);
      else
        RunGuestTarget(ctx, target, runs, *image, accel, backend);
    }
  } catch (...) {
    manifest["interrupted"] = true;
    finish();
    throw;
  }
  finish();
  outcome.records = results.records();
  return outcome;
}

}  // namespace storbed
