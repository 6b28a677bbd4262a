// The host block device(s) under a backing path (L3 of the depth ladder) and its
// /proc/diskstats figures. The chain follows loop devices to their backing file's device
// and device-mapper devices to their slaves: a file on a loop-mounted image on vda gives
// ["loop0", "vda"]. Partitions are reported as their whole disk.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "diskstats.h"
#include "ladder.h"

namespace storbed {

struct DevNumber {
  unsigned major = 0, minor = 0;
};
// stat(path): st_rdev for a block device node, st_dev otherwise. nullopt with *error set
// when stat fails (the errno text).
using StatDeviceFn =
    std::function<std::optional<DevNumber>(const std::string& path, std::string* error)>;
std::optional<DevNumber> StatDevice(const std::string& path, std::string* error);

struct HostDeviceChain {
  bool available = false;
  std::string reason;                // "no device: ..." when !available
  std::vector<std::string> chain;    // kernel names, outermost first: ["loop0", "vda"]
  std::vector<std::string> devices;  // the leaves whose diskstats the L3 rung uses: ["vda"]
  std::vector<std::string> notes;    // "vda1 is a partition of vda", ...
};

// Resolves `path` under `sysfs_root` ("/sys"). Never throws; a path that cannot be
// resolved gives !available and the reason.
HostDeviceChain ResolveHostDevice(const std::string& path, const std::string& sysfs_root = "/sys",
                                  const StatDeviceFn& stat_fn = StatDevice);

// The L3 rung from two /proc/diskstats texts `interval_s` apart, summed over
// chain.devices. Notes "device shared with other host IO". Never throws: a parse error
// or a missing device gives !available with the reason.
LayerStats HostDeviceLayer(const HostDeviceChain& chain, const std::string& before_text,
                           const std::string& after_text, double interval_s);

// The requests in flight (diskstats field 9) summed over chain.devices in one text;
// nullopt when the chain is unavailable or the text has no line for a device.
std::optional<uint64_t> HostInFlight(const HostDeviceChain& chain, const std::string& text);

// Flushes the host devices saw between the two texts (kernel >= 5.5), nullopt when the
// chain is unavailable or the texts do not parse.
std::optional<uint64_t> HostFlushes(const HostDeviceChain& chain, const std::string& before_text,
                                    const std::string& after_text);

}  // namespace storbed
