// `storbed cleanup`: what to look at, and the scanners that follow from it.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "cleanup/host_actions.h"
#include "cleanup/leftover.h"

namespace storbed {

struct CleanupOptions {
  std::vector<std::string> uris;          // --connect; empty = qemu:///system
  std::string inventory;                  // --inventory: every host's "uri" is added
  std::vector<std::string> work_dirs;     // --work-dir; empty = /var/tmp
  std::vector<std::string> results_dirs;  // --results
  bool no_libvirt = false;                // --no-libvirt: host leftovers only
  bool dry_run = false;
  bool force = false;
  bool shared_volumes = false;  // --shared-volumes
  std::string proc_root = "/proc";
  std::string sys_root = "/sys";
};

// The "uri" of every host in an inventory file ({"hosts":[{"name":..,"uri":..}]}).
// Throws std::runtime_error naming the file and what is wrong with it.
std::vector<std::string> ReadInventoryUris(const std::string& path);

// In removal order: libvirt per URI (domains before their volumes), stray QEMU, loop
// devices, vfio-pci bindings, work dirs, sockets. `actions` must outlive the scanners. Throws
// std::runtime_error for a bad inventory.
std::vector<std::unique_ptr<LeftoverScanner>> MakeCleanupScanners(const CleanupOptions& options,
                                                                  HostActions& actions);

}  // namespace storbed
