#include "passthrough/pci_sysfs.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>

namespace storbed {
namespace {

namespace fs = std::filesystem;

std::string FirstLine(const fs::path& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  while (!line.empty() && (line.back() == ' ' || line.back() == '\n' || line.back() == '\t'))
    line.pop_back();
  return line;
}

std::vector<std::string> SortedNames(const fs::path& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) names.push_back(e.path().filename());
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<std::string> Holders(const fs::path& block_dir) {
  return SortedNames(block_dir / "holders");
}

}  // namespace

std::string PciAddressProblem(const std::string& address) {
  static const std::regex kFormat("^[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[01][0-9a-fA-F]\\.[0-7]$");
  if (std::regex_match(address, kFormat)) return "";
  return "\"" + address +
         "\" is not a PCI address: write domain:bus:device.function in hex, like "
         "\"0000:03:00.0\" (lspci -D shows them)";
}

std::string PciSysfs::DeviceDir(const std::string& address) const {
  return root_ + "/bus/pci/devices/" + address;
}

bool PciSysfs::Exists(const std::string& address) const {
  std::error_code ec;
  return fs::exists(DeviceDir(address), ec);
}

std::string PciSysfs::DriverOf(const std::string& address) const {
  std::error_code ec;
  const fs::path target = fs::read_symlink(DeviceDir(address) + "/driver", ec);
  return ec ? "" : target.filename().string();
}

bool PciSysfs::DriverLoaded(const std::string& driver) const {
  std::error_code ec;
  return fs::is_directory(root_ + "/bus/pci/drivers/" + driver, ec);
}

std::string PciSysfs::NvmeController(const std::string& address) const {
  for (const auto& name : SortedNames(DeviceDir(address) + "/nvme"))
    if (std::regex_match(name, std::regex("^nvme[0-9]+$"))) return name;
  return "";
}

std::string PciSysfs::NvmeSerial(const std::string& address) const {
  const std::string ctrl = NvmeController(address);
  return ctrl.empty() ? "" : FirstLine(DeviceDir(address) + "/nvme/" + ctrl + "/serial");
}

// Namespaces sit under the controller's directory as nvmeXnY (native multipath off) and
// as block/nvmeXnY; their partitions are subdirectories of block/nvmeXnY with a
// `partition` file, as for any disk.
std::vector<NvmeBlockDevice> PciSysfs::BlockDevices(const std::string& address) const {
  std::vector<NvmeBlockDevice> out;
  const std::string ctrl = NvmeController(address);
  if (ctrl.empty()) return out;
  const std::regex ns_name("^nvme[0-9]+(c[0-9]+)?n[0-9]+$");
  std::vector<NvmeBlockDevice> partitions;
  for (const auto& ns : SortedNames(DeviceDir(address) + "/nvme/" + ctrl)) {
    if (!std::regex_match(ns, ns_name)) continue;
    const fs::path block = fs::path(root_) / "block" / ns;
    out.push_back({.name = ns,
                   .dev = FirstLine(block / "dev"),
                   .namespace_name = ns,
                   .partition = false,
                   .holders = Holders(block)});
    for (const auto& part : SortedNames(block)) {
      std::error_code ec;
      if (!fs::exists(block / part / "partition", ec)) continue;
      partitions.push_back({.name = part,
                            .dev = FirstLine(block / part / "dev"),
                            .namespace_name = ns,
                            .partition = true,
                            .holders = Holders(block / part)});
    }
  }
  out.insert(out.end(), partitions.begin(), partitions.end());
  return out;
}

std::optional<std::string> PciSysfs::IommuGroup(const std::string& address) const {
  std::error_code ec;
  const fs::path target = fs::read_symlink(DeviceDir(address) + "/iommu_group", ec);
  if (ec) return std::nullopt;
  return target.filename().string();
}

std::vector<std::string> PciSysfs::GroupPeers(const std::string& address) const {
  std::vector<std::string> peers;
  for (const auto& d : SortedNames(DeviceDir(address) + "/iommu_group/devices"))
    if (d != address) peers.push_back(d);
  return peers;
}

std::string PciSysfs::DmUuid(const std::string& dm_name) const {
  return FirstLine(root_ + "/block/" + dm_name + "/dm/uuid");
}

}  // namespace storbed
