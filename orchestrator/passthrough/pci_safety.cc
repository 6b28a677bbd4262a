#include "passthrough/pci_safety.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include "passthrough/pci_sysfs.h"

namespace storbed {
namespace {

struct MountEntry {
  std::string dev;  // "259:1"
  std::string mountpoint;
};

// mountinfo: id parent major:minor root mountpoint ...
std::vector<MountEntry> ReadMounts(const std::string& path) {
  std::vector<MountEntry> out;
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    std::istringstream fields(line);
    std::string id, parent, number, root, mountpoint;
    if (fields >> id >> parent >> number >> root >> mountpoint) out.push_back({number, mountpoint});
  }
  return out;
}

// /proc/swaps names each active swap area by path; a device area is /dev/<name>.
std::vector<std::string> ReadSwapNames(const std::string& path) {
  std::vector<std::string> out;
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string name;
    if (fields >> name) out.push_back(name.substr(name.rfind('/') + 1));
  }
  return out;
}

// "namespace nvme0n1" or "partition nvme0n1p2 of namespace nvme0n1".
std::string Subject(const NvmeBlockDevice& d) {
  return d.partition ? "partition " + d.name + " of namespace " + d.namespace_name
                     : "namespace " + d.name;
}

// md, LVM, dm-crypt or another device-mapper target, told apart by the holder's name and
// its dm uuid prefix (what lsblk's TYPE column reads too).
std::string HolderProblem(const PciSysfs& sys, const NvmeBlockDevice& d, const std::string& h) {
  const std::string who = Subject(d);
  if (h.rfind("md", 0) == 0)
    return who + " is a member of md array " + h + "; stop the array first (mdadm --stop /dev/" +
           h + ")";
  const std::string uuid = sys.DmUuid(h);
  if (uuid.rfind("LVM-", 0) == 0)
    return who + " is an LVM physical volume (held by " + h +
           "); deactivate its volume group first (vgchange -an VG)";
  if (uuid.rfind("CRYPT-", 0) == 0)
    return who + " is open as dm-crypt (held by " + h + "); close it first (cryptsetup close " + h +
           "'s name)";
  return who + " is held by device-mapper device " + h + "; remove it first (dmsetup remove)";
}

std::string NamespaceProblem(const PciSysfs& sys, const std::string& address,
                             const PassthroughSources& src) {
  const auto devices = sys.BlockDevices(address);
  const auto mounts = ReadMounts(src.mountinfo);
  // The root filesystem first: the most serious use, and one no fix here undoes.
  for (const auto& d : devices)
    for (const auto& m : mounts)
      if (m.dev == d.dev && m.mountpoint == "/")
        return Subject(d) +
               " holds the root filesystem; storbed never hands over the device "
               "the host runs from";
  for (const auto& d : devices)
    for (const auto& m : mounts)
      if (m.dev == d.dev)
        return Subject(d) + " is mounted at " + m.mountpoint + "; unmount it first";
  for (const auto& d : devices)
    for (const auto& h : d.holders) return HolderProblem(sys, d, h);
  const auto swaps = ReadSwapNames(src.swaps);
  for (const auto& d : devices)
    if (std::find(swaps.begin(), swaps.end(), d.name) != swaps.end())
      return Subject(d) + " is in use as swap; turn it off first (swapoff /dev/" + d.name + ")";
  return "";
}

std::string GroupProblem(const PciSysfs& sys, const std::string& address) {
  const auto group = sys.IommuGroup(address);
  if (!group)
    return "has no IOMMU group: the IOMMU is off; turn on VT-d (Intel) or AMD-Vi (AMD) in the "
           "firmware, boot with intel_iommu=on or amd_iommu=on, and check that "
           "/sys/kernel/iommu_groups is not empty";
  for (const auto& peer : sys.GroupPeers(address)) {
    const std::string driver = sys.DriverOf(peer);
    if (driver.empty()) continue;
    if (std::find(std::begin(kHarmlessGroupDrivers), std::end(kHarmlessGroupDrivers), driver) !=
        std::end(kHarmlessGroupDrivers))
      continue;
    return "shares IOMMU group " + *group + " with " + peer + ", which is in use (bound to " +
           driver + "); VFIO hands a guest the whole group: unbind " + peer + " from " + driver +
           " first, or use a slot whose group holds the NVMe device alone";
  }
  return "";
}

std::string DriverProblem(const PciSysfs& sys, const std::string& address) {
  if (!sys.DriverLoaded("vfio-pci"))
    return "cannot be handed over: the vfio-pci driver is not loaded; run modprobe vfio-pci";
  const std::string driver = sys.DriverOf(address);
  if (driver == "vfio-pci")
    return "is already bound to vfio-pci: another guest may own it (after a killed storbed "
           "run, storbed cleanup gives it back to its driver)";
  if (driver.empty())
    return "is bound to no driver; bind it to nvme first (echo " + address + " > " +
           "/sys/bus/pci/drivers/nvme/bind) so storbed can check its namespaces";
  if (driver != "nvme" || sys.NvmeController(address).empty())
    return "is bound to " + driver +
           ", not nvme: storbed hands over NVMe controllers only (their namespaces are what it "
           "checks and what the bare-metal twin runs on)";
  return "";
}

}  // namespace

std::string PassthroughProblem(const std::string& address, const std::vector<std::string>& allowed,
                               const PassthroughSources& src) {
  if (const std::string why = PciAddressProblem(address); !why.empty()) return why;
  const std::string device = "PCI device " + address;
  if (std::find(allowed.begin(), allowed.end(), address) == allowed.end())
    return device + " is not on the allow-list; pass --allow-pci " + address +
           " to storbed run if handing it to a guest is meant";
  const PciSysfs sys(src.sysfs_root);
  if (!sys.Exists(address))
    return device + " does not exist (no " + sys.DeviceDir(address) +
           "); lspci -D lists the devices";
  // Device-level reasons read "PCI device A has/is ...", a namespace's "PCI device A: ...".
  if (const std::string why = GroupProblem(sys, address); !why.empty()) return device + " " + why;
  if (const std::string why = DriverProblem(sys, address); !why.empty()) return device + " " + why;
  if (const std::string why = NamespaceProblem(sys, address, src); !why.empty())
    return device + ": " + why;
  return "";
}

std::string PassthroughNamespaceDevice(const std::string& address, const PassthroughSources& src) {
  for (const auto& d : PciSysfs(src.sysfs_root).BlockDevices(address))
    if (!d.partition) return "/dev/" + d.name;
  return "";
}

}  // namespace storbed
