#include "cleanup/tunables_scanner.h"

#include <filesystem>

#include "file_read.h"
#include "owner_marker.h"
#include "tunables_journal.h"

namespace storbed {
namespace {

namespace fs = std::filesystem;

std::string JournalRootsText(const std::vector<std::string>& roots) {
  std::string text;
  for (const auto& r : roots) text += (text.empty() ? "" : ", ") + r;
  return text;
}

class TunablesScanner : public LeftoverScanner {
 public:
  explicit TunablesScanner(HostScanContext c) : c_(std::move(c)) {}
  std::string Scope() const override {
    return "tunables journals in " + JournalRootsText(c_.work_roots);
  }

  std::vector<Leftover> Find() override {
    std::vector<Leftover> found;
    for (const auto& root : c_.work_roots) {
      for (const std::string& dir : StaleTunablesDirs(root, c_.this_host, c_.proc_root)) {
        const auto owner = ParseOwnerMarker(ReadFileOrEmpty(dir + "/" + kOwnerFileName));
        const std::string reason =
            "its agent pid " + std::to_string(owner ? owner->pid : 0) + " gone";
        const auto text = TryReadFile(dir + "/" + kTunablesJournalFile);
        // Killed before the journal was whole (the rename makes it so): nothing changed.
        if (!text) {
          found.push_back(Leftover{.kind = LeftoverKind::TunablesJournal,
                                   .id = dir,
                                   .label = "empty tunables journal dir " + dir,
                                   .reason = reason});
          continue;
        }
        const auto journal = ParseTunablesJournal(*text);
        if (!journal)
          throw std::runtime_error(dir + "/" + kTunablesJournalFile + " is not a tunables journal");
        found.push_back(Leftover{
            .kind = LeftoverKind::TunablesJournal,
            .id = dir,
            .label = "changed queue settings of " + journal->device + " (journal " + dir + ")",
            .reason = reason});
      }
    }
    return found;
  }

  void Remove(const Leftover& item) override {
    const std::string file = item.id + "/" + kTunablesJournalFile;
    if (const auto text = TryReadFile(file)) {
      const auto journal = ParseTunablesJournal(*text);
      if (!journal) throw std::runtime_error(file + " is not a tunables journal");
      RestoreTunables(*journal, c_.sys_root);  // throws, keeping the journal, when it fails
    }
    c_.actions->RemoveTree(item.id);
  }

 private:
  HostScanContext c_;
};

}  // namespace

std::unique_ptr<LeftoverScanner> MakeTunablesScanner(const HostScanContext& context) {
  return std::make_unique<TunablesScanner>(context);
}

}  // namespace storbed
