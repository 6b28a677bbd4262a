// The checks before a PCI device is handed to a guest, as SPDK's scripts/setup.sh makes
// them: the device must be on the command line's allow-list, have an IOMMU group whose
// other members are free, and none of its namespaces or partitions may be mounted, hold
// the root filesystem, be held by md, LVM or dm-crypt, or be swap. `storbed run --dry-run`
// and the real run call the same function before anything is created.
#pragma once

#include <string>
#include <vector>

namespace storbed {

// Where the kernel says what uses a device; tests point these at a fake tree.
struct PassthroughSources {
  std::string sysfs_root = "/sys";
  std::string mountinfo = "/proc/self/mountinfo";
  std::string swaps = "/proc/swaps";
};

// Drivers a peer in the IOMMU group may have without blocking the handover: VFIO's own,
// pci-stub (a placeholder), and pcieport (a bridge in the group, which VFIO accepts).
inline constexpr const char* kHarmlessGroupDrivers[] = {"vfio-pci", "pci-stub", "pcieport"};

// "" when `address` may be bound to vfio-pci; else one sentence naming the device, the
// reason and the fix ("PCI device 0000:03:00.0: namespace nvme0n1 is mounted at /data;
// unmount it first"). `allowed` is the --allow-pci list.
std::string PassthroughProblem(const std::string& address, const std::vector<std::string>& allowed,
                               const PassthroughSources& sources = {});

// The namespace block device the bare-metal twin runs on ("/dev/nvme0n1"): the first
// namespace of the device's controller, or "" when it has none.
std::string PassthroughNamespaceDevice(const std::string& address,
                                       const PassthroughSources& sources = {});

}  // namespace storbed
