// Leftovers on one libvirt URI: domains named storbed-* whose owning run is gone
// (destroyed, and undefined when persistent), then the volumes of the "storbed" pool
// those runs left. One scanner per URI, so a daemon that is down costs one line.
#pragma once

#include <memory>
#include <string>

#include "cleanup/leftover.h"

namespace storbed {

struct LibvirtScanOptions {
  std::string uri = "qemu:///system";
  std::string proc_root = "/proc";  // to check owner pids (the owner ran on this host)
  std::string this_host;
  bool force = false;  // --force: items needing it count as removed when choosing volumes
  bool shared_volumes = false;  // --shared-volumes: also unused shared kernel/initrd volumes
};

std::unique_ptr<LeftoverScanner> MakeLibvirtScanner(const LibvirtScanOptions& options);

}  // namespace storbed
