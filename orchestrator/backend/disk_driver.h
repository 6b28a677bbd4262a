// QEMU's protocol drivers under a disk's format node, one row each with its rules. Every
// question about a driver ("has it storage?", "is it a block device?") reads the row, so
// no other file compares driver names.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace storbed {

inline constexpr const char* kDriverFile = "file";               // a regular host file
inline constexpr const char* kDriverHostDevice = "host_device";  // a host block device
// No storage at all: QEMU completes each request after null_latency_ns, so the virtual
// path alone is measured.
inline constexpr const char* kDriverNullCo = "null-co";

struct DiskDriverRow {
  const char* name;
  bool has_storage;      // false: no backing, size from null_size, raw only, no bare metal
  bool block_device;     // a host block device: libvirt <disk type='block'>, <source dev>
  bool scenario_choice;  // may be named in a scenario's disk.driver (storbed picks
                         // host_device itself when the backing is a block device)
  bool libvirt_native;   // libvirt has a <disk> for it; otherwise qemu:commandline
};

// The row of `name`, or nullptr.
const DiskDriverRow* FindDiskDriver(std::string_view name);

// The row of `name`. Throws std::invalid_argument naming it and the allowed drivers.
const DiskDriverRow& DiskDriverOf(std::string_view name);

// "\"file\", \"host_device\", \"null-co\"": for error messages.
std::string DiskDriverNames();

// The drivers a scenario's disk.driver may name, in table order.
std::vector<std::string> ScenarioDiskDrivers();

// True unless `driver` is a known driver without storage (null-co).
bool DriverHasStorage(std::string_view driver);

}  // namespace storbed
