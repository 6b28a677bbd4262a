// PCI devices a killed run left bound to vfio-pci. A run that hands a device to a guest
// writes vfio-<address>.json (passthrough/vfio_binding.h) into its storbed-work-* dir
// before the first sysfs write; when that dir's owner is gone, the device is given back
// to the driver the file names. Runs after the stray QEMU scanner (QEMU holds the VFIO
// group open) and before the work dir scanner removes the file.
#pragma once

#include <memory>

#include "cleanup/host_scanners.h"
#include "passthrough/vfio_binding.h"

namespace storbed {

// Finds the state files in stale work dirs of this host; Remove restores the driver
// through `writer` under context.sys_root and deletes the file. `writer` must outlive it.
std::unique_ptr<LeftoverScanner> MakePciBindingScanner(const HostScanContext& context,
                                                       SysfsWriter& writer);

}  // namespace storbed
