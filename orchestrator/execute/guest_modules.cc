#include "execute/guest_modules.h"

#include <algorithm>

#include "backend/bus_table.h"

namespace storbed {

std::vector<std::string> GuestModulesOf(const std::vector<Bus>& buses,
                                        const std::vector<std::string>& filesystems) {
  std::vector<std::string> modules;
  auto add = [&modules](const std::string& m) {
    if (std::find(modules.begin(), modules.end(), m) == modules.end()) modules.push_back(m);
  };
  for (Bus bus : buses)
    for (const char* m : RowOf(bus).guest_modules)
      if (m) add(m);
  // The agent's port is a virtio-serial-pci device: virtio_pci finds it, whatever the disks.
  add("virtio_pci");
  add("virtio_console");
  for (const std::string& filesystem : filesystems) {
    if (filesystem.empty()) continue;
    // crc32c_generic first: ext4 and xfs need the crc32c algorithm only by softdep, which
    // modules.dep does not list.
    add("crc32c_generic");
    add(filesystem);
  }
  return modules;
}

std::vector<std::string> GuestModulesFor(const Scenario& scenario) {
  std::vector<Bus> buses;
  for (const TargetKind& t : scenario.targets)
    if (t.bus) buses.push_back(*t.bus);
  std::vector<std::string> filesystems;
  for (const MachineVariant& mv : scenario.machines) filesystems.push_back(mv.disk.filesystem);
  return GuestModulesOf(buses, filesystems);
}

std::vector<std::string> DefaultGuestModules() {
  std::vector<std::string> modules = BusGuestModules();
  // crc32c_generic before ext4 and xfs: both need the crc32c crypto algorithm only by
  // softdep (modules.dep does not list it), and without it ext4's mount and libcrc32c's
  // load fail.
  modules.insert(modules.end(), {"virtio_console", "crc32c_generic", "ext4", "xfs"});
  return modules;
}

}  // namespace storbed
