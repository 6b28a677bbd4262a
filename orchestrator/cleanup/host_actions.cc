#include "cleanup/host_actions.h"

#include <fcntl.h>
#include <linux/loop.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "device_in_use.h"
#include "proc_stat.h"

namespace storbed {
namespace {

std::runtime_error SysError(const std::string& what) {
  return std::runtime_error(what + ": " + std::strerror(errno));
}

// True while `pid` is the process that started at `start_ticks` and has not been reaped
// or become a zombie (a zombie holds no files or sockets any more).
bool StillRunning(const std::string& proc_root, int pid, uint64_t start_ticks) {
  std::ifstream in(proc_root + "/" + std::to_string(pid) + "/stat");
  std::string line;
  std::getline(in, line);
  const auto stat = ParseProcStat(line);
  return stat && stat->start_ticks == start_ticks && stat->state != 'Z' && stat->state != 'X';
}

bool WaitGone(const std::string& proc_root, int pid, uint64_t start_ticks,
              std::chrono::milliseconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (StillRunning(proc_root, pid, start_ticks)) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return true;
}

}  // namespace

void RealHostActions::KillProcess(int pid, uint64_t start_ticks) {
  const std::string name = "pid " + std::to_string(pid);
  if (!StillRunning(proc_root_, pid, start_ticks)) return;  // gone already, or pid reused
  // SIGTERM first: QEMU then closes its files and sockets itself.
  if (kill(pid, SIGTERM) != 0 && errno != ESRCH) throw SysError("kill(" + name + ", SIGTERM)");
  if (WaitGone(proc_root_, pid, start_ticks, std::chrono::seconds(3))) return;
  if (!StillRunning(proc_root_, pid, start_ticks)) return;
  if (kill(pid, SIGKILL) != 0 && errno != ESRCH) throw SysError("kill(" + name + ", SIGKILL)");
  if (!WaitGone(proc_root_, pid, start_ticks, std::chrono::seconds(5)))
    throw std::runtime_error(name + " is still there 5 s after SIGKILL (stuck in the kernel?)");
}

void RealHostActions::DetachLoop(const std::string& device) {
  // A mounted loop device is only switched to autoclear by LOOP_CLR_FD and stays: a dead
  // filesystem run's mount goes first (deepest first), so nothing is deleted inside it.
  std::vector<std::string> mounts = MountPointsOf(device);
  for (auto it = mounts.rbegin(); it != mounts.rend(); ++it)
    if (umount2(it->c_str(), 0) != 0 && errno != EINVAL)
      throw SysError("umount " + *it + " (where " + device + " is mounted)");
  const int fd = open(device.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw SysError("open " + device);
  const int rc = ioctl(fd, LOOP_CLR_FD, 0);
  const int err = errno;
  close(fd);
  // ENXIO: already detached. EBUSY does not happen since Linux 2.6 for CLR_FD: a device
  // still open elsewhere is switched to autoclear and goes at its last close.
  if (rc != 0 && err != ENXIO) {
    errno = err;
    throw SysError("LOOP_CLR_FD " + device);
  }
  // Said "removed" only once the kernel dropped the backing file.
  const std::string backing =
      "/sys/block/" + std::filesystem::path(device).filename().string() + "/loop/backing_file";
  for (int i = 0; i < 40 && std::filesystem::exists(backing); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  if (std::filesystem::exists(backing))
    throw std::runtime_error(device + " is still attached 2 s after LOOP_CLR_FD (still open "
                             "elsewhere; it detaches at its last close)");
}

void RealHostActions::RemoveTree(const std::string& path) {
  // Never delete inside a mounted filesystem: its files are the mounted image's, and the
  // mount would be left busy. A mount left here means its loop device could not go.
  std::ifstream mountinfo("/proc/self/mountinfo");
  const std::string prefix = std::filesystem::path(path).lexically_normal().string() + "/";
  for (std::string line; std::getline(mountinfo, line);) {
    std::istringstream fields(line);
    std::string id, parent, number, root, mountpoint;
    fields >> id >> parent >> number >> root >> mountpoint;
    if ((mountpoint + "/").rfind(prefix, 0) == 0)
      throw std::runtime_error(path + " holds the mount point " + mountpoint +
                               "; not removed (unmount it first)");
  }
  std::error_code ec;
  std::filesystem::remove_all(path, ec);
  if (ec) throw std::runtime_error("remove " + path + ": " + ec.message());
}

void RealHostActions::RemoveFile(const std::string& path) {
  if (unlink(path.c_str()) != 0 && errno != ENOENT) throw SysError("unlink " + path);
}

}  // namespace storbed
