#include "target_device.h"

#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <sstream>

#include "file_read.h"
#include "job_runner.h"

namespace storbed {
namespace {

class RealSysfsReader : public SysfsReader {
 public:
  std::optional<std::string> ReadFile(const std::string& path) const override {
    return TryReadFile(path);
  }
  std::optional<std::string> ReadLink(const std::string& path) const override {
    char buf[4096];
    const ssize_t n = readlink(path.c_str(), buf, sizeof buf - 1);
    if (n < 0) return std::nullopt;
    return std::string(buf, size_t(n));
  }
};

}  // namespace

const SysfsReader& RealSysfs() {
  static const RealSysfsReader reader;
  return reader;
}

std::optional<std::string> ParseUeventDevname(const std::string& uevent) {
  std::istringstream lines(uevent);
  std::string line;
  while (std::getline(lines, line))
    if (line.rfind("DEVNAME=", 0) == 0 && line.size() > 8) return line.substr(8);
  return std::nullopt;
}

TargetDevice ResolveTargetDevice(const std::string& path, const SysfsReader& sys) {
  TargetDevice dev;
  struct stat st;
  if (stat(path.c_str(), &st) != 0) {
    dev.reason = "stat(" + path + ") failed: " + std::strerror(errno);
    return dev;
  }
  dev_t id;
  if (S_ISBLK(st.st_mode)) {
    id = st.st_rdev;
  } else if (S_ISREG(st.st_mode)) {
    id = st.st_dev;
  } else {
    dev.reason = path + " is neither a block device nor a regular file";
    return dev;
  }
  dev.major = major(id);
  dev.minor = minor(id);
  const std::string mm = std::to_string(dev.major) + ":" + std::to_string(dev.minor);
  // Major 0 is the kernel's anonymous device range: tmpfs, overlayfs, btrfs subvolumes,
  // FUSE. No request queue sits under them, so no diskstats line counts their IO.
  if (dev.major == 0) {
    dev.reason = "its filesystem is on anonymous device " + mm +
                 " (tmpfs, overlayfs, btrfs or FUSE), not a block device";
    return dev;
  }
  const std::string sysdir = "/sys/dev/block/" + mm;
  if (auto uevent = sys.ReadFile(sysdir + "/uevent"))
    if (auto name = ParseUeventDevname(*uevent)) {
      dev.name = *name;
      return dev;
    }
  if (auto link = sys.ReadLink(sysdir)) {
    const size_t slash = link->find_last_of('/');
    dev.name = slash == std::string::npos ? *link : link->substr(slash + 1);
    if (!dev.name->empty()) return dev;
    dev.name.reset();
  }
  dev.reason = "device " + mm + " has no entry under /sys/dev/block (is /sys mounted?)";
  return dev;
}

uint64_t TargetSize(int fd, const std::string& path) {
  struct stat st;
  if (fstat(fd, &st) != 0) throw JobError(path + ": fstat failed: " + std::strerror(errno));
  if (S_ISREG(st.st_mode)) return uint64_t(st.st_size);
  if (S_ISBLK(st.st_mode)) {
    uint64_t bytes = 0;
    if (ioctl(fd, BLKGETSIZE64, &bytes) != 0)
      throw JobError(path + ": ioctl(BLKGETSIZE64) failed: " + std::strerror(errno));
    return bytes;
  }
  throw JobError(path + " is neither a block device nor a regular file");
}

std::optional<uint64_t> FirstHole(int fd, uint64_t begin, uint64_t end) {
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || begin >= end) return std::nullopt;
  // Filesystems without hole support report the end of file as the only hole.
  const off_t hole = lseek(fd, off_t(begin), SEEK_HOLE);
  if (hole < 0 || uint64_t(hole) >= end || hole >= st.st_size) return std::nullopt;
  return uint64_t(hole);
}

}  // namespace storbed
