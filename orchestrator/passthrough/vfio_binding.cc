#include "passthrough/vfio_binding.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "strict_json.h"

namespace storbed {
namespace {

constexpr const char* kVfio = "vfio-pci";

[[noreturn]] void Fail(const std::string& address, const std::string& step,
                       const std::string& why) {
  throw std::runtime_error("PCI device " + address + ": " + step + ": " + why);
}

void WriteStep(SysfsWriter& w, const std::string& address, const std::string& path,
               const std::string& value, const std::string& step) {
  try {
    w.Write(path, value);
  } catch (const std::exception& e) {
    Fail(address, step, e.what());
  }
}

void WriteStateFile(const std::string& path, const std::string& text) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw std::runtime_error(path + ": cannot create: " + std::strerror(errno));
  const bool ok = ::write(fd, text.data(), text.size()) == ssize_t(text.size());
  // fsync: the file is what cleanup reads after a SIGKILL or a power cut.
  const bool synced = ok && ::fsync(fd) == 0;
  const int saved = errno;
  ::close(fd);
  if (!synced) throw std::runtime_error(path + ": cannot write: " + std::strerror(saved));
}

}  // namespace

void RealSysfsWriter::Write(const std::string& path, const std::string& value) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) throw std::runtime_error("open " + path + ": " + std::strerror(errno));
  const ssize_t n = ::write(fd, value.data(), value.size());
  const int saved = errno;
  ::close(fd);
  if (n != ssize_t(value.size()))
    throw std::runtime_error("write \"" + value + "\" to " + path + ": " +
                             (n < 0 ? std::strerror(saved) : "short write"));
}

std::string BindingStateFileName(const std::string& address) {
  return kBindingStatePrefix + address + ".json";
}

std::string FormatBindingRecord(const PciBindingRecord& r) {
  return nlohmann::json{
             {"address", r.address}, {"original_driver", r.original_driver}, {"serial", r.serial}}
             .dump() +
         "\n";
}

std::optional<PciBindingRecord> ParseBindingRecord(const std::string& text) {
  const auto j = ParseJsonOrDiscarded(text);
  if (!j.is_object()) return std::nullopt;
  for (const char* key : {"address", "original_driver", "serial"})
    if (!j.contains(key) || !j[key].is_string()) return std::nullopt;
  PciBindingRecord r{j["address"], j["original_driver"], j["serial"]};
  if (!PciAddressProblem(r.address).empty() || r.original_driver.empty() ||
      r.original_driver.find('/') != std::string::npos)
    return std::nullopt;
  return r;
}

void BindToVfio(const PciSysfs& sys, SysfsWriter& w, const std::string& address) {
  const std::string dev = sys.DeviceDir(address);
  // The override first: once set, no other driver takes the device between the unbind
  // and the probe (a hotplug or udev rule could otherwise rebind it to nvme).
  WriteStep(w, address, dev + "/driver_override", kVfio, "setting driver_override");
  if (const std::string current = sys.DriverOf(address); !current.empty() && current != kVfio)
    WriteStep(w, address, sys.root() + "/bus/pci/drivers/" + current + "/unbind", address,
              "unbinding from " + current);
  if (sys.DriverOf(address).empty())
    WriteStep(w, address, sys.root() + "/bus/pci/drivers_probe", address, "probing for vfio-pci");
  if (const std::string now = sys.DriverOf(address); now != kVfio)
    Fail(address, "binding to vfio-pci",
         "the device is bound to " + (now.empty() ? std::string("no driver") : now) +
             " after the probe (dmesg may say why)");
}

void RestoreDriver(const PciSysfs& sys, SysfsWriter& w, const PciBindingRecord& r) {
  const std::string dev = sys.DeviceDir(r.address);
  // An empty override (a lone newline) lets any matching driver take the device again.
  WriteStep(w, r.address, dev + "/driver_override", "\n", "clearing driver_override");
  if (sys.DriverOf(r.address) == kVfio)
    WriteStep(w, r.address, sys.root() + "/bus/pci/drivers/vfio-pci/unbind", r.address,
              "unbinding from vfio-pci");
  if (sys.DriverOf(r.address).empty())
    WriteStep(w, r.address, sys.root() + "/bus/pci/drivers/" + r.original_driver + "/bind",
              r.address, "binding to " + r.original_driver);
  if (const std::string now = sys.DriverOf(r.address); now != r.original_driver)
    Fail(r.address, "giving it back to " + r.original_driver,
         "the device is bound to " + (now.empty() ? std::string("no driver") : now));
}

VfioBinding::VfioBinding(const PciSysfs& sys, SysfsWriter& writer, const std::string& address,
                         const std::string& state_dir)
    : sys_(sys), writer_(&writer) {
  record_ = {.address = address,
             .original_driver = sys.DriverOf(address),
             .serial = sys.NvmeSerial(address)};
  if (record_.original_driver.empty() || record_.original_driver == kVfio)
    Fail(
        address, "binding to vfio-pci",
        "it is bound to " +
            (record_.original_driver.empty() ? std::string("no driver") : record_.original_driver) +
            ", so there is no driver to give it back to");
  state_file_ = state_dir + "/" + BindingStateFileName(address);
  // Written before the first change: a SIGKILL after any sysfs write leaves the record.
  WriteStateFile(state_file_, FormatBindingRecord(record_));
  bound_ = true;
  try {
    BindToVfio(sys_, *writer_, address);
  } catch (...) {
    try {
      Restore();
    } catch (const std::exception& e) {
      std::cerr << "storbed: " << e.what() << "\n";
    }
    throw;
  }
}

VfioBinding::VfioBinding(VfioBinding&& o) noexcept
    : sys_(o.sys_),
      writer_(o.writer_),
      record_(std::move(o.record_)),
      state_file_(std::move(o.state_file_)),
      bound_(o.bound_) {
  o.bound_ = false;
}

void VfioBinding::Restore() {
  if (!bound_) return;
  RestoreDriver(sys_, *writer_, record_);
  bound_ = false;
  std::error_code ec;
  std::filesystem::remove(state_file_, ec);
}

VfioBinding::~VfioBinding() {
  try {
    Restore();
  } catch (const std::exception& e) {
    std::cerr << "storbed: " << e.what() << "; the record stays in " << state_file_
              << " for storbed cleanup, or by hand: echo > " << sys_.DeviceDir(record_.address)
              << "/driver_override; echo " << record_.address
              << " > /sys/bus/pci/drivers/vfio-pci/unbind; echo " << record_.address
              << " > /sys/bus/pci/drivers/" << record_.original_driver << "/bind\n";
  }
}

}  // namespace storbed
