#include "execute/input_checks.h"

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>

#include "backend/child_process.h"
#include "backend/disk_driver.h"
#include "device_in_use.h"
#include "execute/backing.h"
#include "execute/backing_leases.h"
#include "execute/buffer_memory.h"
#include "execute/foreign_image.h"
#include "execute/round_gate.h"
#include "execute/run_steps.h"
#include "execute/runner.h"
#include "file_read.h"
#include "images/binary_checks.h"
#include "images/image_error.h"
#include "input_file.h"
#include "plan/run_hosts.h"
#include "plan/run_plan.h"

namespace storbed {
namespace {

namespace fs = std::filesystem;

[[noreturn]] void Fail(const Scenario& s, const std::string& field, const std::string& reason) {
  throw ScenarioError(s.path + ": " + field + ": " + reason);
}

bool NeedsGuest(const Scenario& s) {
  for (const auto t : s.targets)
    if (t != TargetKind::BareMetal) return true;
  return false;
}

void CheckKernel(const Scenario& s, const MachineConfig& m) {
  if (m.kernel != "host") {
    if (const std::string why = BzImageProblem(m.kernel); !why.empty())
      Fail(s, "machine.kernel", m.kernel + " " + why);
  }
  if (!m.modules_dir.empty()) {
    std::error_code ec;
    if (!fs::exists(m.modules_dir, ec)) Fail(s, "machine.modules_dir", m.modules_dir + " does not exist");
    if (!fs::is_directory(m.modules_dir, ec))
      Fail(s, "machine.modules_dir", m.modules_dir + " is not a directory");
  }
  GuestKernel kernel;
  try {
    kernel = GuestKernelFor(m);
  } catch (const ImageError& e) {
    Fail(s, m.kernel == "host" ? "machine.kernel" : "machine.modules_dir", e.what());
  } catch (const ScenarioError& e) {
    throw ScenarioError(s.path + ": " + e.what());  // names the field, not the file
  }
  // A module built for another release does not load: the guest would lack its drivers.
  const std::string release = BzImageRelease(kernel.image_path);
  if (!release.empty() && release != kernel.release)
    Fail(s, "machine.modules_dir",
         kernel.modules_dir + " holds the modules of release " + kernel.release + ", but " +
             kernel.image_path + " is release " + release);
}

// The size of a backing that passed BackingPathProblem: a file's length, a device's end.
uint64_t BackingBytes(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  const off_t end = lseek(fd, 0, SEEK_END);
  close(fd);
  return end < 0 ? 0 : static_cast<uint64_t>(end);
}

// What the real run's UseExistingBacking and QEMU would refuse after the work dir is made,
// found here: a block device reached through another path, holes, no write permission,
// a job region past the end.
void CheckBacking(const Scenario& s, const DiskConfig& disk, const JobDirections& directions) {
  if (const std::string why = BackingPathProblem(disk.backing); !why.empty())
    Fail(s, "disk.backing", disk.backing + " " + why);
  struct stat st {};
  stat(disk.backing.c_str(), &st);
  const bool device = S_ISBLK(st.st_mode);
  // Validation refuses writes on a /dev path without allow_writes; a symbolic link
  // elsewhere reaches a device as well.
  if (device && directions.writes && !disk.allow_writes) {
    std::error_code ec;
    const std::string real = fs::canonical(disk.backing, ec).string();
    Fail(s, "disk.backing",
         disk.backing + " is the block device " + real + " and the scenario has write jobs: name " +
             real + " in disk.backing and set disk.allow_writes true if overwriting it is meant");
  }
  if (device && directions.writes && disk.allow_writes) {
    if (const std::string why = DeviceInUse(disk.backing); !why.empty())
      Fail(s, "disk.allow_writes",
           disk.backing + " " + why + "; storbed does not write to a device the host is using");
  }
  if (directions.writes && access(disk.backing.c_str(), W_OK) != 0)
    Fail(s, "disk.backing",
         disk.backing + " cannot be written (" + std::strerror(errno) +
             ") and the scenario has write jobs");
  const uint64_t bytes = BackingBytes(disk.backing);
  if (!device && directions.reads) {
    const int fd = open(disk.backing.c_str(), O_RDONLY | O_CLOEXEC);
    const bool holes = fd >= 0 && FileHasHoles(fd, bytes);
    if (fd >= 0) close(fd);
    if (holes)
      Fail(s, "disk.backing",
           disk.backing +
               " has holes (sparse or never written): reads of holes never reach the device; "
               "fill it with data first (e.g. dd if=/dev/urandom)");
  }
  for (const auto& j : s.jobs)
    if (j.offset >= bytes || j.size > bytes - j.offset)
      Fail(s, "job \"" + j.name + "\": size",
           "the region (offset " + std::to_string(j.offset) + " + size " + std::to_string(j.size) +
               " bytes) ends past the end of disk.backing " + disk.backing + " (" +
               std::to_string(bytes) + " bytes)");
}

// disk.passthrough: the safety checks of pci_safety.h (allow-list, IOMMU group, mounts,
// holders, swap, root), and a backend that can hand the device over.
void CheckPassthrough(const Scenario& s, const RunOptions& o, const std::string& address) {
  const std::string field = "disk.passthrough";
  // storbed binds the device to vfio-pci through this machine's sysfs: the guest must run
  // here too (the QEMU backend, or libvirt with a local URI).
  for (const RunHost& h : HostsFor(o))
    if (h.backend == HostBackend::Libvirt && HostNameForUri(h.uri) != kLocalHost)
      Fail(s, field, "PCI device " + address + ": libvirt host " + h.name + " (" + h.uri +
                         ") is another machine; storbed hands over only a device of this "
                         "one: run with a local URI or --backend qemu");
  if (const std::string why = PassthroughProblem(address, o.allow_pci, o.passthrough_sources);
      !why.empty())
    Fail(s, field, why);
}

// The backings storbed makes, one per distinct disk (BackingLeases::KeyOf), must fit in
// the work directory with a margin: a "16t" disk would otherwise fill it to ENOSPC.
void CheckFreeSpace(const Scenario& s, const RunOptions& o) {
  std::map<std::string, uint64_t> needed;
  for (const auto& m : s.machines) {
    const DiskConfig& d = m.disk;
    if (!d.backing.empty() || !d.passthrough.empty() || !DriverHasStorage(d.driver)) continue;
    // qcow2 is converted from a raw file that stays beside it.
    needed[BackingLeases::KeyOf(d)] = d.image_bytes() * (d.format == "qcow2" ? 2 : 1);
  }
  if (needed.empty()) return;
  std::error_code ec;
  if (!fs::is_directory(o.work_dir, ec))
    throw ScenarioError("--work-dir " + o.work_dir + ": " +
                        (fs::exists(o.work_dir, ec) ? "is not a directory" : "does not exist"));
  // The backings are made there first: a directory storbed cannot write is found now,
  // not as "need 0.0 GiB" or an error after the out dir was made.
  if (access(o.work_dir.c_str(), W_OK | X_OK) != 0)
    throw ScenarioError("--work-dir " + o.work_dir +
                        ": cannot be written: " + std::strerror(errno));
  uint64_t total = 0;
  for (const auto& [key, bytes] : needed) total += bytes;
  struct statvfs vfs {};
  if (statvfs(o.work_dir.c_str(), &vfs) != 0)
    throw ScenarioError("--work-dir " + o.work_dir + ": cannot read its free space: " +
                        std::strerror(errno));
  const uint64_t free_bytes = uint64_t(vfs.f_bavail) * vfs.f_frsize;
  if (total + kWorkDirMarginBytes > free_bytes)
    Fail(s, "disk.size",
         "the backings need " + SizeText(total) + " in " + o.work_dir + " (plus a margin of " +
             SizeText(kWorkDirMarginBytes) + "), which has " + SizeText(free_bytes) + " free");
}

}  // namespace

std::string BackingPathProblem(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return "does not exist";
    return std::string("cannot be read: ") + std::strerror(errno);
  }
  struct statfs fsinfo {};
  if (statfs(path.c_str(), &fsinfo) == 0 &&
      (fsinfo.f_type == PROC_SUPER_MAGIC || fsinfo.f_type == SYSFS_MAGIC))
    return "is on /proc or /sys, not storage";
  if (!S_ISREG(st.st_mode) && !S_ISBLK(st.st_mode))
    return "is " + FileKindName(st.st_mode) + "; a backing must be a regular file or a block device";
  if (S_ISREG(st.st_mode) && st.st_size == 0) return "is empty";
  return "";
}

std::string DirectoryPathProblem(const std::string& path) {
  struct stat st {};
  for (fs::path p = path; !p.empty(); p = p.parent_path()) {
    if (stat(p.c_str(), &st) != 0) {
      if (errno != ENOENT && errno != ENOTDIR)
        return "cannot be read: " + std::string(std::strerror(errno));
      if (p == p.parent_path()) break;
      continue;
    }
    if (S_ISDIR(st.st_mode)) return "";
    const std::string kind = FileKindName(st.st_mode);
    if (p == fs::path(path)) return "is " + kind + ", not a directory";
    return p.string() + " is " + kind + ", so no directory can be made there";
  }
  return "";
}

std::string HistoryFileProblem(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) == 0) {
    if (!S_ISREG(st.st_mode))
      return "is " + FileKindName(st.st_mode) + ", not a history database file";
    if (access(path.c_str(), W_OK) != 0)
      return std::string("cannot be written: ") + std::strerror(errno);
    return "";
  }
  if (errno != ENOENT) return std::string("cannot be read: ") + std::strerror(errno);
  const fs::path parent = fs::path(path).has_parent_path() ? fs::path(path).parent_path() : ".";
  if (stat(parent.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    return "its directory " + parent.string() + " does not exist";
  if (access(parent.c_str(), W_OK) != 0)
    return "cannot be made in " + parent.string() + ": " + std::strerror(errno);
  return "";
}

std::string BareMetalHostProblem(bool root) {
  if (root) return "";
  return "\"bare-metal\" needs root on this host: storbed attaches the backing to a loop "
         "device, drops the page cache and sets the device's queue tunables; run as root or "
         "drop \"bare-metal\" from targets";
}

std::string TraceHostProblem(bool root, const std::string& proc_filesystems) {
  if (!root)
    return "needs root on this host: the host device's block tracepoints (and the bare-metal "
           "twin's) are read through tracefs, which only root may instrument";
  std::istringstream lines(proc_filesystems);
  for (std::string line; std::getline(lines, line);)
    if (line.size() >= 7 && line.compare(line.size() - 7, 7, "tracefs") == 0 &&
        (line.size() == 7 || std::isspace(static_cast<unsigned char>(line[line.size() - 8]))))
      return "";
  return "this host's kernel has no tracefs (not in /proc/filesystems: a kernel without "
         "CONFIG_TRACING), so its block tracepoints cannot be read";
}

void CheckRunInputs(const Scenario& s, const RunOptions& o) {
  if (o.until_conclusive) UntilConclusiveOf(o, s);  // throws what is wrong with it
  // A bare name is looked up in PATH, as starting the agent does.
  const std::string found = ProgramPath(o.agent_path);
  if (const std::string why = StaticAgentProblem(found.empty() ? o.agent_path : found);
      !why.empty())
    throw ScenarioError("--agent " + o.agent_path + ": " + why);
  for (const auto t : s.targets)
    if (t == TargetKind::BareMetal)
      if (const std::string why = BareMetalHostProblem(geteuid() == 0); !why.empty())
        Fail(s, "targets", why);
  // The guest image is built there before the first boot, after the backings are made.
  if (NeedsGuest(s) && !o.image_cache_dir.empty())
    if (const std::string why = DirectoryPathProblem(o.image_cache_dir); !why.empty())
      throw ScenarioError("--image-cache " + o.image_cache_dir + ": " + why);
  JobDirections directions;
  for (const auto& j : s.jobs) {
    directions.writes |= j.rw != Direction::Read;
    directions.reads |= j.rw != Direction::Write;
  }
  std::set<std::string> kernels;
  for (const auto& m : s.machines) {
    if (const std::string why = ForeignMachineProblem(m.machine); !why.empty())
      throw ScenarioError(s.path + ": " + why);
    if (NeedsGuest(s) && m.machine.image.empty() &&
        kernels.insert(m.machine.kernel + "\n" + m.machine.modules_dir).second)
      CheckKernel(s, m.machine);
    if (!m.disk.backing.empty() && DriverHasStorage(m.disk.driver))
      CheckBacking(s, m.disk, directions);
    if (!m.disk.passthrough.empty()) CheckPassthrough(s, o, m.disk.passthrough);
  }
  // Tracing needs the host's tracefs: found out before anything runs, not after a boot.
  for (const auto& j : s.jobs)
    if (j.trace) {
      const std::string filesystems = ReadFileOrEmpty("/proc/filesystems");
      if (const std::string why = TraceHostProblem(geteuid() == 0, filesystems); !why.empty())
        Fail(s, "job \"" + j.name + "\": trace", why);
      break;
    }
  // A matrix_exclude by target drops runs only the plan sees; the run would do nothing
  // and exit 0.
  if (PlanScenario(s).runs.empty())
    Fail(s, "matrix_exclude", "drops every run (each target x machine x job combination)");
  // Before the free space: a job too large for memory is the first thing to change.
  CheckBufferMemory(s, ReadFileOrEmpty("/proc/meminfo"), BackingBytes);
  CheckFreeSpace(s, o);
}

}  // namespace storbed
