// What a job's target is on the block layer: the kernel device whose /proc/diskstats
// line covers it, its size in bytes, and whether a file has holes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace storbed {

// Reads of /sys, behind an interface so the lookup logic is testable with a fake.
class SysfsReader {
 public:
  virtual ~SysfsReader() = default;
  // The file's text; nullopt when it cannot be read.
  virtual std::optional<std::string> ReadFile(const std::string& path) const = 0;
  // The symlink's target; nullopt when it is not a readable symlink.
  virtual std::optional<std::string> ReadLink(const std::string& path) const = 0;
};
const SysfsReader& RealSysfs();

struct TargetDevice {
  std::optional<std::string> name;  // kernel name as in /proc/diskstats, e.g. "vda", "vda1"
  std::string reason;               // why there is none, when name is empty
  unsigned major = 0, minor = 0;
};

// Block device -> its own major:minor; regular file -> the device its filesystem
// lives on (st_dev). Then DEVNAME from /sys/dev/block/MAJ:MIN/uevent, or the basename
// of that symlink. No name, with a reason, for tmpfs/overlay (major 0) and the like.
TargetDevice ResolveTargetDevice(const std::string& path, const SysfsReader& sys = RealSysfs());

// DEVNAME=<x> from a uevent file's text.
std::optional<std::string> ParseUeventDevname(const std::string& uevent);

// Bytes in the open target: st_size for a file, BLKGETSIZE64 for a block device.
// Throws JobError naming the path and syscall.
uint64_t TargetSize(int fd, const std::string& path);

// The first hole in [begin, end) of a regular file (SEEK_HOLE), nullopt when there is
// none, the target is not a regular file, or the filesystem cannot say.
std::optional<uint64_t> FirstHole(int fd, uint64_t begin, uint64_t end);

}  // namespace storbed
