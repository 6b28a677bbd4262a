#include "execute/runner.h"

#include <filesystem>
#include <memory>
#include <ostream>

#include "backend/accel.h"
#include "backend/backend_qemu.h"
#include "backend/interrupt.h"
#include "execute/foreign_image.h"
#include "execute/host_backend.h"
#include "execute/input_checks.h"
#include "execute/run_steps.h"
#include "images/image_builder.h"
#include "images/kernel_locator.h"
#include "scenario/fio_command_line.h"
#include "scenario/fio_import.h"

namespace storbed {

GuestKernel GuestKernelFor(const MachineConfig& machine) {
  if (machine.kernel == "host") return FindNewestHostKernel();
  namespace fs = std::filesystem;
  std::string modules = machine.modules_dir;
  if (modules.empty()) {
    // A Debian-style name vmlinuz-<release> (a link is followed: DEST/vmlinuz of
    // scripts/fetch-guest-kernel.sh) points at <root>/lib/modules/<release> of an
    // unpacked package tree <root>/boot/vmlinuz-<release>, else at /lib/modules/<release>.
    std::error_code ec;
    const fs::path kernel = fs::exists(machine.kernel, ec) ? fs::canonical(machine.kernel)
                                                           : fs::path(machine.kernel);
    const std::string base = kernel.filename();
    const std::string prefix = "vmlinuz-";
    if (base.rfind(prefix, 0) != 0)
      throw ScenarioError("machine.modules_dir: required when machine.kernel (" + machine.kernel +
                          ") is not named vmlinuz-<release>");
    const std::string release = base.substr(prefix.size());
    const fs::path tree = kernel.parent_path().parent_path() / "lib/modules" / release;
    modules = kernel.parent_path().filename() == "boot" && fs::is_directory(tree, ec)
                  ? tree.string()
                  : "/lib/modules/" + release;
  }
  return KernelFromPaths(machine.kernel, modules);
}

namespace {

std::optional<Accel> ForcedAccel(const std::string& accel) {
  if (accel == "auto" || accel.empty()) return std::nullopt;
  return ParseAccel(accel);
}

// Boots the image under KVM and waits briefly for the agent: a stock kernel can hang
// under a /dev/kvm that opens but does not work, so flags alone are not enough.
KvmGuestProbe MakeKvmProbe(const GuestImage& image, const std::string& dir) {
  MachineSpec spec;
  spec.name = "kvm-probe";
  spec.vcpus = 1;
  spec.memory_mib = 256;
  spec.kernel = image.boot_kernel_path.empty() ? image.kernel_path : image.boot_kernel_path;
  spec.initrd = image.initrd_path;
  spec.cmdline = kGuestCmdline;
  spec.run_dir = dir;
  auto backend = std::make_shared<QemuBackend>();
  KvmGuestProbe boot = MakeKvmBootProbe(*backend, spec, std::chrono::seconds(30));
  return [backend, boot](std::string* why) {
    if (boot(why)) return true;
    *why = "a probe guest under KVM did not answer: " + *why;
    return false;
  };
}

}  // namespace

RunDeps RealRunDeps() {
  RunDeps deps;
  deps.make_backend = MakeHostBackend;
  deps.build_image = [](const MachineConfig& machine, const std::vector<std::string>& modules,
                        const RunOptions& options) {
    if (!machine.image.empty()) return ForeignGuestImage(machine);  // nothing to build
    ImageRequest request;
    request.kernel = GuestKernelFor(machine);
    request.modules = modules;
    request.agent_path = options.agent_path;
    request.cache_dir = options.image_cache_dir;
    return BuildGuestImage(request);
  };
  deps.decide_accel = [](const std::string& choice, const GuestImage& image,
                         const std::string& probe_dir) {
    RealAccelHost host(MakeKvmProbe(image, probe_dir));
    return DetectAccel(host, ForcedAccel(choice));
  };
  deps.qemu_version = [] { return QemuVersionOf("qemu-system-x86_64"); };
  deps.check_inputs = CheckRunInputs;
  return deps;
}

namespace {

// The options that rewrite the scenario, then the scenario's own checks, so a field they set
// is refused by name as if the file had said it:
// - --trace: "trace": true in every job that does not set trace itself (a job that says
//   false, or lists [false, true], keeps what it says);
// - --until-conclusive: interleaved rounds (an order the file sets otherwise is refused
//   later, by name), and --budget's rounds as the repeats.
Scenario WithOptions(nlohmann::json doc, const std::string& path, const RunOptions& options) {
  std::string said;
  if (options.trace && doc.is_object() && doc.contains("jobs") && doc["jobs"].is_array()) {
    for (nlohmann::json& job : doc["jobs"])
      if (job.is_object() && !job.contains("trace")) job["trace"] = true;
    said = " (with --trace)";
  }
  if (options.until_conclusive && doc.is_object()) {
    if (!doc.contains("order")) doc["order"] = "interleaved";
    if (options.budget_rounds) doc["repeats"] = options.budget_rounds;
  }
  return ScenarioFromJson(doc, path + said, options.max_runs);
}

}  // namespace

Scenario LoadScenarioFor(const RunOptions& options) {
  const bool rewritten = options.trace || options.until_conclusive;
  if (options.fio_path.empty() && options.fio_args.empty()) {
    if (!rewritten) return LoadScenario(options.scenario_path, options.max_runs);
    return WithOptions(LoadScenarioDocument(options.scenario_path), options.scenario_path, options);
  }
  FioImport imported = ImportFioSource(options.fio_path, options.fio_args,
                                       ParseFioTargets(options.fio_targets), options.max_runs);
  if (!rewritten) return std::move(imported.scenario);
  return WithOptions(std::move(imported.document),
                     options.fio_path.empty() ? "fio-args" : options.fio_path, options);
}

std::string EfficiencyLine(double io_phase_s, double warmup_s, double wall_s) {
  const auto share = [wall_s](double s) { return wall_s > 0 ? s / wall_s : 0.0; };
  char line[240];
  int n = std::snprintf(line, sizeof line,
                        "efficiency: %.1f s of IO phases in %.1f s of wall time (%.2f)",
                        io_phase_s, wall_s, share(io_phase_s));
  if (warmup_s > 0 && n > 0 && size_t(n) < sizeof line)
    std::snprintf(line + n, sizeof line - size_t(n), "; with the warm-ups' %.1f s, %.2f",
                  warmup_s, share(io_phase_s + warmup_s));
  return line;
}

RunOutcome RunScenario(const RunOptions& options, std::ostream& out) {
  return RunScenarioWith(options, RealRunDeps(), out);
}

}  // namespace storbed
