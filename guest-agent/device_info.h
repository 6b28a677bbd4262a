// The block devices a machine offers, read from sysfs: what the hello reply lists so
// the host can map its disks (by serial) to guest device names.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "protocol.h"

namespace storbed::agent {

// True for devices that are never benchmark targets: loop*, ram*, zram*, sr* and
// empty dm-* nodes.
bool IsIgnoredBlockDevice(const std::string& name, uint64_t size_bytes);

// One device from <sysfs_root>/block/<name>; nullopt when that directory is missing.
// Attributes a device lacks (serial, model, mq) stay empty or 0.
// The serial in a SCSI Unit Serial Number VPD page (sysfs device/vpd_pg80); "" if none.
std::string SerialFromVpdPage80(const std::filesystem::path& path);

std::optional<BlockDeviceInfo> ReadBlockDevice(const std::filesystem::path& sysfs_root,
                                               const std::string& name);

// Every device under <sysfs_root>/block except the ignored ones, sorted by name.
// Empty when the directory is missing (sysfs not mounted).
std::vector<BlockDeviceInfo> ListBlockDevices(const std::filesystem::path& sysfs_root = "/sys");

}  // namespace storbed::agent
