// Handing a PCI device to vfio-pci and giving it back, as the kernel documents for
// driver_override: write the override, unbind from the current driver, ask the bus to
// probe; back: clear the override, unbind from vfio-pci, bind to the original driver.
// A state file written before the first change records the original driver, so
// `storbed cleanup` can give the device back after a SIGKILL (cleanup/pci_scanner.h).
#pragma once

#include <optional>
#include <string>

#include "passthrough/pci_sysfs.h"

namespace storbed {

// Writes to sysfs attributes, behind an interface so tests use a fake kernel.
class SysfsWriter {
 public:
  virtual ~SysfsWriter() = default;
  // Writes `value` to the existing attribute `path`. Throws std::runtime_error naming the
  // path and errno's text.
  virtual void Write(const std::string& path, const std::string& value) = 0;
};

// open(O_WRONLY) and one write(2): sysfs takes an attribute in one write.
class RealSysfsWriter : public SysfsWriter {
 public:
  void Write(const std::string& path, const std::string& value) override;
};

// What the state file holds.
struct PciBindingRecord {
  std::string address;          // "0000:03:00.0"
  std::string original_driver;  // "nvme"
  std::string serial;           // the controller's serial, which the guest will report
};

// The state file's name in the run's work dir: "vfio-0000:03:00.0.json".
std::string BindingStateFileName(const std::string& address);
inline constexpr const char* kBindingStatePrefix = "vfio-";

// One JSON object; ParseBindingRecord returns nullopt for anything else.
std::string FormatBindingRecord(const PciBindingRecord& record);
std::optional<PciBindingRecord> ParseBindingRecord(const std::string& text);

// Binds `address` to vfio-pci through driver_override. Throws std::runtime_error naming
// the device and the step when a write fails or the device does not end on vfio-pci.
void BindToVfio(const PciSysfs& sys, SysfsWriter& writer, const std::string& address);

// Gives the device back to record.original_driver (any step already done is skipped, so
// it is safe to repeat). Throws std::runtime_error naming the device and the step.
void RestoreDriver(const PciSysfs& sys, SysfsWriter& writer, const PciBindingRecord& record);

// The device bound to vfio-pci for as long as this lives: the constructor writes the state
// file into `state_dir` and binds; Restore() or the destructor (every exit path, Ctrl-C
// included) gives it back and removes the state file. Move-only.
class VfioBinding {
 public:
  // Throws std::runtime_error (the device is back on its driver when binding failed).
  VfioBinding(const PciSysfs& sys, SysfsWriter& writer, const std::string& address,
              const std::string& state_dir);
  VfioBinding(VfioBinding&& other) noexcept;
  VfioBinding(const VfioBinding&) = delete;
  VfioBinding& operator=(const VfioBinding&) = delete;
  VfioBinding& operator=(VfioBinding&&) = delete;
  // Restores; a failure is printed on stderr with the commands that finish the job.
  ~VfioBinding();

  const PciBindingRecord& record() const { return record_; }
  // Gives the device back now. Throws std::runtime_error; the state file then stays.
  void Restore();

 private:
  PciSysfs sys_;
  SysfsWriter* writer_;  // not owned
  PciBindingRecord record_;
  std::string state_file_;
  bool bound_ = false;
};

}  // namespace storbed
