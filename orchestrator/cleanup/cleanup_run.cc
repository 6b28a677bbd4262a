#include "cleanup/cleanup_run.h"

#include <exception>
#include <ostream>

namespace storbed {
namespace {

std::string Plural(int n, const std::string& word) {
  return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

}  // namespace

CleanupTally RunScanners(const std::vector<std::unique_ptr<LeftoverScanner>>& scanners,
                         CleanupPolicy policy, std::ostream& out, std::ostream& err) {
  const bool dry_run = policy.dry_run;
  CleanupTally tally;
  for (const auto& scanner : scanners) {
    std::vector<Leftover> items;
    try {
      items = scanner->Find();
    } catch (const ScannerUnavailable& e) {
      err << "storbed: cleanup: note: " << scanner->Scope() << ": skipped: " << e.what() << "\n";
      continue;
    } catch (const std::exception& e) {
      err << "storbed: cleanup: " << scanner->Scope() << ": " << e.what() << "\n";
      ++tally.failures;
      continue;
    }
    for (const auto& item : items) {
      if (item.needs_force && !policy.force) {
        out << "left alone " << item.label << " (" << item.reason << "; --force removes it)\n";
        ++tally.left_alone;
        continue;
      }
      if (dry_run) {
        out << "would remove " << item.label << " (" << item.reason << ")\n";
        ++tally.removed;
        continue;
      }
      try {
        scanner->Remove(item);
        out << "removed " << item.label << " (" << item.reason << ")\n";
        ++tally.removed;
      } catch (const std::exception& e) {
        err << "storbed: cleanup: cannot remove " << item.label << ": " << e.what() << "\n";
        ++tally.failures;
      }
    }
  }
  out << "cleanup: " << (dry_run ? "would remove " : "removed ") << Plural(tally.removed, "item");
  if (tally.left_alone) out << ", left alone " << tally.left_alone;
  if (tally.failures) out << ", " << Plural(tally.failures, "failure");
  out << (dry_run ? " (dry run: nothing was changed)" : "") << "\n";
  return tally;
}

}  // namespace storbed
