#include "execute/environment_fingerprint.h"

#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "backend/child_process.h"
#include "execute/host_info.h"
#include "file_read.h"
#include "images/file_digest.h"
#include "version.h"

namespace storbed {
namespace {

namespace fs = std::filesystem;

std::string OrUnknown(const std::string& s) { return s.empty() ? "unknown" : s; }

// The bracketed choice of a sysfs selector ("always [madvise] never" -> "madvise").
std::string Selected(const std::string& line) {
  const size_t open = line.find('['), close = line.find(']');
  if (open == std::string::npos || close == std::string::npos) return line;
  return line.substr(open + 1, close - open - 1);
}

// The first "key : value" of /proc/cpuinfo's text with this key.
std::string CpuInfo(const std::string& cpuinfo, const std::string& key) {
  std::istringstream in(cpuinfo);
  for (std::string line; std::getline(in, line);)
    if (line.rfind(key, 0) == 0 && line.find(':') != std::string::npos)
      return line.substr(line.find(':') + 2);
  return "";
}

std::string Boost(const std::string& sys) {
  const std::string boost = ReadFirstLine(sys + "/devices/system/cpu/cpufreq/boost");
  if (!boost.empty()) return boost == "1" ? "on" : "off";
  const std::string no_turbo = ReadFirstLine(sys + "/devices/system/cpu/intel_pstate/no_turbo");
  if (!no_turbo.empty()) return no_turbo == "1" ? "off" : "on";
  return "unknown";
}

std::string Mitigations(const std::string& sys) {
  std::error_code ec;
  std::vector<std::string> items;
  for (const auto& e : fs::directory_iterator(sys + "/devices/system/cpu/vulnerabilities", ec))
    items.push_back(e.path().filename().string() + ": " + ReadFirstLine(e.path().string()));
  std::sort(items.begin(), items.end());
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : "; ") + i;
  return out;
}

// The fingerprint records what it could not read as unknown rather than failing the run.
std::string Sha256OrEmpty(const std::string& path) {
  try {
    return FileSha256(path);
  } catch (const std::runtime_error&) {
    return "";
  }
}

// The block device holding `dir` (its whole disk for a partition) and how it is set up.
void AddBackingDevice(const FingerprintSources& s, nlohmann::json& f) {
  struct stat st {};
  if (stat(s.work_dir.c_str(), &st) != 0) return;
  std::error_code ec;
  fs::path dev = fs::canonical(s.sys_root + "/dev/block/" + std::to_string(major(st.st_dev)) +
                                   ":" + std::to_string(minor(st.st_dev)), ec);
  if (ec) return;
  if (!fs::exists(dev / "queue")) dev = dev.parent_path();  // a partition: its disk's queue
  f["backing_device.name"] = dev.filename().string();
  f["backing_device.model"] = OrUnknown(ReadFirstLine((dev / "device/model").string()));
  f["backing_device.scheduler"] = Selected(ReadFirstLine((dev / "queue/scheduler").string()));
  f["backing_device.read_ahead_kb"] = ReadFirstLine((dev / "queue/read_ahead_kb").string());
  // The filesystem of the longest mount point holding the work dir.
  std::ifstream mounts(s.proc_root + "/mounts");
  const std::string dir = fs::weakly_canonical(s.work_dir, ec).string();
  size_t best = 0;
  for (std::string src, point, type, rest; mounts >> src >> point >> type && std::getline(mounts, rest);)
    if (dir.rfind(point, 0) == 0 && point.size() >= best) {
      best = point.size();
      f["backing_device.filesystem"] = type;
    }
}

}  // namespace

nlohmann::json EnvironmentFingerprint(const FingerprintSources& s) {
  utsname u{};
  uname(&u);
  const std::string cpu = s.sys_root + "/devices/system/cpu";
  const std::string cpuinfo = ReadFileOrEmpty(s.proc_root + "/cpuinfo");  // read once, two fields
  nlohmann::json f = {
      {"host.kernel", std::string(u.release) + " " + u.version},
      {"cpu.model", OrUnknown(CpuInfo(cpuinfo, "model name"))},
      {"cpu.microcode", OrUnknown(CpuInfo(cpuinfo, "microcode"))},
      {"cpu.governor", OrUnknown(ReadFirstLine(cpu + "/cpu0/cpufreq/scaling_governor"))},
      {"cpu.boost", Boost(s.sys_root)},
      {"cpu.smt", OrUnknown(ReadFirstLine(cpu + "/smt/control"))},
      {"cpu.mitigations", OrUnknown(Mitigations(s.sys_root))},
      {"mm.thp",
       OrUnknown(Selected(ReadFirstLine(s.sys_root + "/kernel/mm/transparent_hugepage/enabled")))},
      {"memory.total", OrUnknown(ReadFirstLine(s.proc_root + "/meminfo"))},
      {"storbed.git_revision", kGitRevision},
  };
  const std::string qemu = ProgramPath(s.qemu_binary);
  f["qemu.binary_sha256"] = OrUnknown(qemu.empty() ? "" : Sha256OrEmpty(qemu));
  AddBackingDevice(s, f);
  // "0.52 0.58 0.59 2/345 6789": load, then runnable/all scheduling entities (us included).
  std::istringstream load(ReadFirstLine(s.proc_root + "/loadavg"));
  std::string one, five, fifteen, runnable;
  if (load >> one >> five >> fifteen >> runnable) {
    f["load.avg1"] = one;
    f["load.other_runnable"] =
        std::to_string(std::max(0, std::stoi(runnable.substr(0, runnable.find('/'))) - 1));
  }
  return f;
}

}  // namespace storbed
