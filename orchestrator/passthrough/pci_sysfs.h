// What sysfs says about one PCI device handed to a guest: its driver, its NVMe controller
// and namespaces (with their partitions and holders), its serial and its IOMMU group.
// Every path is under a sysfs root ("/sys" for real, a temp dir in tests), so nothing
// here ever needs a real device.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace storbed {

// "" when `address` is a full PCI address DDDD:BB:DD.F (hex domain, bus, device 00-1f,
// function 0-7); else the reason.
std::string PciAddressProblem(const std::string& address);

// One block device of the controller: a namespace or a partition of one.
struct NvmeBlockDevice {
  std::string name;            // "nvme0n1", "nvme0n1p2"
  std::string dev;             // "259:0", from its dev file
  std::string namespace_name;  // the namespace it is or belongs to
  bool partition = false;
  std::vector<std::string> holders;  // block/<name>/holders: "md0", "dm-1"
};

class PciSysfs {
 public:
  explicit PciSysfs(std::string root) : root_(std::move(root)) {}
  const std::string& root() const { return root_; }

  // <root>/bus/pci/devices/<address>
  std::string DeviceDir(const std::string& address) const;
  bool Exists(const std::string& address) const;
  // The driver the device is bound to ("nvme", "vfio-pci"), "" when none.
  std::string DriverOf(const std::string& address) const;
  // True when <root>/bus/pci/drivers/<driver> exists (the module is loaded).
  bool DriverLoaded(const std::string& driver) const;
  // The NVMe controller the nvme driver made for it ("nvme0"), "" when none.
  std::string NvmeController(const std::string& address) const;
  // The controller's serial as the kernel shows it (trailing blanks trimmed), "" if none.
  std::string NvmeSerial(const std::string& address) const;
  // The controller's namespaces and their partitions, namespaces first, sorted by name.
  std::vector<NvmeBlockDevice> BlockDevices(const std::string& address) const;
  // The IOMMU group's number ("7"), or nullopt when the device has none (IOMMU off).
  std::optional<std::string> IommuGroup(const std::string& address) const;
  // The other devices in the device's IOMMU group, sorted.
  std::vector<std::string> GroupPeers(const std::string& address) const;
  // The dm device's uuid (block/dm-N/dm/uuid: "LVM-...", "CRYPT-LUKS2-..."), "" if none.
  std::string DmUuid(const std::string& dm_name) const;

 private:
  std::string root_;
};

}  // namespace storbed
