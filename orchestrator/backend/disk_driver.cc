#include "backend/disk_driver.h"

#include <stdexcept>

namespace storbed {
namespace {

// clang-format off
const DiskDriverRow kDrivers[] = {
    {.name = kDriverFile, .has_storage = true, .block_device = false,
     .scenario_choice = true, .libvirt_native = true},
    {.name = kDriverHostDevice, .has_storage = true, .block_device = true,
     .scenario_choice = false, .libvirt_native = true},
    {.name = kDriverNullCo, .has_storage = false, .block_device = false,
     .scenario_choice = true, .libvirt_native = false},
};
// clang-format on

}  // namespace

const DiskDriverRow* FindDiskDriver(std::string_view name) {
  for (const DiskDriverRow& row : kDrivers) {
    if (name == row.name) return &row;
  }
  return nullptr;
}

std::string DiskDriverNames() {
  std::string names;
  for (const DiskDriverRow& row : kDrivers) {
    names += (names.empty() ? "\"" : ", \"") + std::string(row.name) + "\"";
  }
  return names;
}

const DiskDriverRow& DiskDriverOf(std::string_view name) {
  if (const DiskDriverRow* row = FindDiskDriver(name)) return *row;
  throw std::invalid_argument("\"" + std::string(name) +
                              "\" is not supported; allowed: " + DiskDriverNames());
}

std::vector<std::string> ScenarioDiskDrivers() {
  std::vector<std::string> names;
  for (const DiskDriverRow& row : kDrivers) {
    if (row.scenario_choice) names.push_back(row.name);
  }
  return names;
}

bool DriverHasStorage(std::string_view driver) {
  const DiskDriverRow* row = FindDiskDriver(driver);
  return row == nullptr || row->has_storage;
}

}  // namespace storbed
