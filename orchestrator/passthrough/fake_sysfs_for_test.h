// Tests only: a fake sysfs tree (PCI devices, drivers, IOMMU groups, NVMe namespaces and
// their block devices), a mountinfo and a swaps file in a temporary directory, and a
// SysfsWriter that acts as the kernel does on driver_override, unbind, bind and
// drivers_probe while recording every write.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "passthrough/pci_safety.h"
#include "passthrough/vfio_binding.h"

namespace storbed::passthrough_test {

namespace fs = std::filesystem;

inline void WriteFile(const fs::path& path, const std::string& data) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary | std::ios::trunc) << data;
}

inline std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

class FakeSysfs {
 public:
  // `root`: a directory that lives as long as this object (made by the caller or here).
  explicit FakeSysfs(std::string root = "") {
    if (root.empty()) {
      std::string pattern = (fs::temp_directory_path() / "storbed-sysfs-XXXXXX");
      if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
      root = pattern;
      owned_ = true;
    }
    root_ = root;
    fs::create_directories(sys() + "/bus/pci/devices");
    fs::create_directories(sys() + "/block");
    for (const char* d : {"nvme", "vfio-pci", "xhci_hcd", "pcieport"}) AddDriver(d);
    WriteFile(mountinfo(), "22 1 0:21 / /proc rw - proc proc rw\n");
    WriteFile(swaps(), "Filename\t\t\t\tType\t\tSize\t\tUsed\t\tPriority\n");
  }
  ~FakeSysfs() {
    std::error_code ec;
    if (owned_) fs::remove_all(root_, ec);
  }
  FakeSysfs(const FakeSysfs&) = delete;
  FakeSysfs& operator=(const FakeSysfs&) = delete;

  std::string sys() const { return root_ + "/sys"; }
  std::string mountinfo() const { return root_ + "/mountinfo"; }
  std::string swaps() const { return root_ + "/swaps"; }
  PassthroughSources Sources() const { return {sys(), mountinfo(), swaps()}; }
  std::string Dev(const std::string& address) const {
    return sys() + "/bus/pci/devices/" + address;
  }

  void AddDriver(const std::string& name) {
    fs::create_directories(sys() + "/bus/pci/drivers/" + name);
    WriteFile(sys() + "/bus/pci/drivers/" + name + "/bind", "");
    WriteFile(sys() + "/bus/pci/drivers/" + name + "/unbind", "");
    WriteFile(sys() + "/bus/pci/drivers_probe", "");
  }
  void RemoveDriver(const std::string& name) { fs::remove_all(sys() + "/bus/pci/drivers/" + name); }

  // A PCI device bound to `driver` ("" = none), alone in IOMMU group `group` ("" = none).
  void AddPci(const std::string& address, const std::string& driver, const std::string& group) {
    fs::create_directories(Dev(address));
    WriteFile(Dev(address) + "/driver_override", "(null)\n");
    SetDriver(address, driver);
    if (!group.empty()) {
      const std::string g = sys() + "/kernel/iommu_groups/" + group;
      fs::create_directories(g + "/devices");
      fs::create_symlink(Dev(address), g + "/devices/" + address);
      fs::create_symlink(g, Dev(address) + "/iommu_group");
    }
  }
  void SetDriver(const std::string& address, const std::string& driver) {
    std::error_code ec;
    fs::remove(Dev(address) + "/driver", ec);
    if (!driver.empty())
      fs::create_symlink(sys() + "/bus/pci/drivers/" + driver, Dev(address) + "/driver");
  }

  // An NVMe controller nvme<n> bound to nvme in group `group`, with namespaces
  // nvme<n>n1.. (block devices 259:<n*10+i>) and its serial.
  void AddNvme(const std::string& address, int n, int namespaces, const std::string& group,
               const std::string& serial = "S4EWNX0R123456") {
    AddPci(address, "nvme", group);
    const std::string ctrl = "nvme" + std::to_string(n);
    WriteFile(Dev(address) + "/nvme/" + ctrl + "/serial", serial + "      \n");
    for (int i = 1; i <= namespaces; ++i) {
      const std::string ns = ctrl + "n" + std::to_string(i);
      fs::create_directories(Dev(address) + "/nvme/" + ctrl + "/" + ns);
      WriteFile(sys() + "/block/" + ns + "/dev", "259:" + std::to_string(n * 10 + i) + "\n");
      fs::create_directories(sys() + "/block/" + ns + "/holders");
    }
  }
  void AddPartition(const std::string& ns, const std::string& part, const std::string& dev) {
    WriteFile(sys() + "/block/" + ns + "/" + part + "/partition", "1\n");
    WriteFile(sys() + "/block/" + ns + "/" + part + "/dev", dev + "\n");
    fs::create_directories(sys() + "/block/" + ns + "/" + part + "/holders");
  }
  // `block` ("nvme0n1" or "nvme0n1/nvme0n1p1") is held by `holder`, a dm device with
  // `dm_uuid` when that is not empty.
  void AddHolder(const std::string& block, const std::string& holder, const std::string& dm_uuid) {
    fs::create_directories(sys() + "/block/" + holder);
    fs::create_symlink(sys() + "/block/" + holder,
                       sys() + "/block/" + block + "/holders/" + holder);
    if (!dm_uuid.empty()) WriteFile(sys() + "/block/" + holder + "/dm/uuid", dm_uuid + "\n");
  }
  void Mount(const std::string& dev, const std::string& mountpoint) {
    std::ofstream(mountinfo(), std::ios::app)
        << "30 1 " << dev << " / " << mountpoint << " rw,relatime - ext4 /dev/x rw\n";
  }
  void Swap(const std::string& name) {
    std::ofstream(swaps(), std::ios::app) << "/dev/" << name << " partition\t1048572\t0\t-2\n";
  }

 private:
  std::string root_;
  bool owned_ = false;
};

// Acts on the fake tree as the kernel would and records "path-under-sys <- value".
class FakeKernelWriter : public SysfsWriter {
 public:
  explicit FakeKernelWriter(FakeSysfs& sys) : sys_(sys) {}
  void Write(const std::string& path, const std::string& value) override {
    const std::string rel = path.substr(sys_.sys().size() + 1);
    writes.push_back(rel + " <- " + (value == "\n" ? "\\n" : value));
    if (fail_on == rel) throw std::runtime_error("write " + path + ": Permission denied");
    if (!fs::exists(path)) throw std::runtime_error("open " + path + ": No such file or directory");
    const std::string prefix = "bus/pci/drivers/";
    if (rel.ends_with("/driver_override")) {
      WriteFile(path, value == "\n" ? "(null)\n" : value + "\n");
      return;
    }
    if (rel == "bus/pci/drivers_probe") {
      const std::string override_driver = ReadFile(sys_.Dev(value) + "/driver_override");
      const std::string d = override_driver == "(null)\n"
                                ? original
                                : override_driver.substr(0, override_driver.size() - 1);
      if (!vfio_refuses || d != "vfio-pci") sys_.SetDriver(value, d);
    } else if (rel.starts_with(prefix) && rel.ends_with("/unbind")) {
      sys_.SetDriver(value, "");
    } else if (rel.starts_with(prefix) && rel.ends_with("/bind")) {
      sys_.SetDriver(value, rel.substr(prefix.size(), rel.size() - prefix.size() - 5));
    }
    WriteFile(path, value);
  }

  std::vector<std::string> writes;
  std::string fail_on;        // a write to this path fails
  bool vfio_refuses = false;  // vfio-pci's probe fails (no IOMMU, say)
  std::string original = "nvme";

 private:
  FakeSysfs& sys_;
};

}  // namespace storbed::passthrough_test
