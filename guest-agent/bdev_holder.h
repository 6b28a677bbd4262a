// Keeps the block devices the agent's jobs use open for the agent's lifetime.
#pragma once

#include <string>

namespace storbed::agent {

// Opens `path` read-only once and keeps it open, if it is a block device. Linux drops a
// block device's page cache when its last opener closes it (blkdev_put -> kill_bdev), so
// without a holder every job would start cold whatever `cache` said ("keep", "warm" and a
// prepare before a run would all be lost at the job's close). Never throws: a device that
// cannot be held is left to the job to report.
void HoldBlockDeviceOpen(const std::string& path);

// How many devices are held (for tests).
size_t HeldBlockDevices();

}  // namespace storbed::agent
