// Runs scanners in order: each finds its leftovers, then removes them (or, in a dry run,
// lists them), one line per item, and a summary line at the end.
#pragma once

#include <iosfwd>
#include <memory>
#include <vector>

#include "cleanup/leftover.h"

namespace storbed {

struct CleanupTally {
  int removed = 0;     // or, in a dry run, would be removed
  int left_alone = 0;  // needed --force
  int failures = 0;    // scanners that could not look plus items that could not be removed
};

// What a cleanup may remove.
struct CleanupPolicy {
  bool dry_run = false;  // list what would be removed; remove nothing
  bool force = false;    // also remove the items that need --force
};

// Lines on `out`: "removed <label> (<reason>)", "would remove ...", "left alone <label>
// (<reason>; --force removes it)", then "cleanup: ...". Failures on `err`:
// "storbed: cleanup: <scope>: <error>" or "storbed: cleanup: cannot remove <label>: <error>".
CleanupTally RunScanners(const std::vector<std::unique_ptr<LeftoverScanner>>& scanners,
                         CleanupPolicy policy, std::ostream& out, std::ostream& err);

}  // namespace storbed
