// Whether a host block device is in use: mounted (itself or a partition), held by md,
// LVM or dm-crypt, or active swap. `disk.allow_writes` lets storbed overwrite a device
// the user named; it must never be one the host is using.
#pragma once

#include <string>
#include <vector>

namespace storbed {

// Where the kernel says what uses a device; tests point these at fake files.
struct DeviceUseSources {
  std::string mountinfo = "/proc/self/mountinfo";
  std::string swaps = "/proc/swaps";
  std::string sys_dev_block = "/sys/dev/block";
};

// "" when the block device `path` is not in use; else "is mounted at /", "is held by
// dm-0 (md, LVM or dm-crypt)", "is in use as swap" (a partition of it is named).
std::string DeviceInUse(const std::string& path, const DeviceUseSources& sources = {});

// The mount points of the block device `path` itself (not its partitions), from
// mountinfo; empty when it is not mounted or not a block device.
std::vector<std::string> MountPointsOf(const std::string& path,
                                       const std::string& mountinfo = "/proc/self/mountinfo");

}  // namespace storbed
