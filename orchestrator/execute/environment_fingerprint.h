// The environment a run's figures depend on, item by item ("cpu.governor" -> "performance"),
// recorded in every manifest so `storbed compare` can list what differs between two
// results directories. Reads only; an unreadable item is "unknown".
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace storbed {

struct FingerprintSources {
  std::string work_dir = "/var/tmp";  // its block device is the backings' device
  std::string qemu_binary = "qemu-system-x86_64";
  std::string proc_root = "/proc";
  std::string sys_root = "/sys";
};

// Flat {"host.kernel": ..., "cpu.model": ..., "backing_device.read_ahead_kb": ...}.
// Items under "load." describe the moment the run started: compare shows them but does
// not gate on them (they differ between any two runs).
nlohmann::json EnvironmentFingerprint(const FingerprintSources& sources);

}  // namespace storbed
