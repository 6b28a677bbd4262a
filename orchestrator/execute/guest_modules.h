// The kernel modules a scenario's guests need: its targets' buses, the agent channel, and
// the filesystems its disks carry. Nothing else goes in, so a guest kernel that lacks an
// unused driver (the cloud kernel has no ahci) still boots, and the initramfs stays small.
#pragma once

#include <string>
#include <vector>

#include "scenario/scenario.h"

namespace storbed {

// In load order, without repeats: each guest target's bus modules (bus_table.cc),
// virtio_console, then crc32c_generic and ext4 or xfs when a disk has that filesystem.
std::vector<std::string> GuestModulesFor(const Scenario& scenario);

// The same for guests with disks on `buses` and the `filesystems` ("ext4", "xfs"; "" for
// none) in them: what a guest the backends start without a scenario (the VM tests') needs.
std::vector<std::string> GuestModulesOf(const std::vector<Bus>& buses,
                                        const std::vector<std::string>& filesystems = {});

// The modules of `storbed image build` and the VM tests' shared image, fit for any scenario:
// every bus row's, the agent channel's virtio_console, and crc32c_generic, ext4 and xfs.
std::vector<std::string> DefaultGuestModules();

}  // namespace storbed
