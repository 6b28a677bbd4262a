// Whether a host block device is in use: holding the root filesystem, mounted (itself or a
// partition), held by md, LVM or dm-crypt, active swap, or opened exclusively by another
// program. One judgement for every writer on the host: storbed's input checks
// (`disk.allow_writes`) and the standalone agent (guest-agent/target_safety.h), so a
// device the host is using is never overwritten by either.
#pragma once

#include <string>
#include <vector>

namespace storbed {

// Where the kernel says what uses a device; tests point these at fake files.
struct DeviceUseSources {
  std::string mountinfo = "/proc/self/mountinfo";
  std::string swaps = "/proc/swaps";
  std::string sys_dev_block = "/sys/dev/block";
  // Also try open(O_EXCL), which the kernel refuses (EBUSY) while anything has claimed the
  // device: it catches users the files above do not list (a VM's disk, another tool's
  // exclusive open). Off for fake device nodes, which name no real device.
  bool exclusive_open = true;
};

// "" when the block device `path` is not in use; else "holds the root filesystem", "is
// mounted at /data", "is held by dm-0 (md, LVM or dm-crypt)", "is in use as swap" or "is
// open exclusively by another program" (a partition of it is named). "" for a path that is
// not a block device.
std::string DeviceInUse(const std::string& path, const DeviceUseSources& sources = {});

// The mount points of the block device `path` itself (not its partitions), from
// mountinfo; empty when it is not mounted or not a block device.
std::vector<std::string> MountPointsOf(const std::string& path,
                                       const std::string& mountinfo = "/proc/self/mountinfo");

}  // namespace storbed
