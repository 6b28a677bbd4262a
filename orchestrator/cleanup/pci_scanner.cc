#include "cleanup/pci_scanner.h"

#include <chrono>
#include <filesystem>

#include "cleanup/stale_work_dirs.h"
#include "file_read.h"

namespace storbed {
namespace {

namespace fs = std::filesystem;

class PciBindingScanner : public LeftoverScanner {
 public:
  PciBindingScanner(HostScanContext c, SysfsWriter& writer) : c_(std::move(c)), writer_(writer) {}
  std::string Scope() const override { return "PCI devices left on vfio-pci"; }

  std::vector<Leftover> Find() override {
    const ProcessTable table = ProcessTable::Read(c_.proc_root, /*with_fds=*/true);
    const auto loops = ReadAttachedLoops(c_.sys_root);
    const auto verdicts = JudgeWorkDirs(
        c_.work_roots,
        WorkDirContext{.processes = table, .loops = loops, .this_host = c_.this_host});
    std::vector<Leftover> found;
    // Only this host's dead runs: a device of another host cannot be given back from here.
    for (const auto& dir : StaleOnly(verdicts)) {
      std::error_code ec;
      for (const auto& entry : fs::directory_iterator(dir.path, ec)) {
        const std::string name = entry.path().filename();
        if (name.rfind(kBindingStatePrefix, 0) != 0 || !name.ends_with(".json")) continue;
        const auto record = ParseBindingRecord(ReadFileOrEmpty(entry.path()));
        if (!record) throw std::runtime_error(entry.path().string() + " is not a binding record");
        found.push_back(Leftover{.kind = LeftoverKind::PciBinding,
                                 .id = entry.path(),
                                 .label = "vfio-pci binding of PCI device " + record->address +
                                          " (back to " + record->original_driver + ")",
                                 .reason = "its run's " + dir.reason});
      }
    }
    return found;
  }

  void Remove(const Leftover& item) override {
    const auto record = ParseBindingRecord(ReadFileOrEmpty(item.id));
    if (!record) throw std::runtime_error(item.id + " is not a binding record");
    RestoreDriver(PciSysfs(c_.sys_root), writer_, *record);
    c_.actions->RemoveFile(item.id);
  }

 private:
  HostScanContext c_;
  SysfsWriter& writer_;
};

}  // namespace

std::unique_ptr<LeftoverScanner> MakePciBindingScanner(const HostScanContext& context,
                                                       SysfsWriter& writer) {
  return std::make_unique<PciBindingScanner>(context, writer);
}

}  // namespace storbed
