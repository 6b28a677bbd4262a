// Host queue settings a killed standalone agent left changed. The agent writes the
// originals into a storbed-tunables-* dir (common/tunables_journal.h) under its
// --journal-dir before it changes them, and removes it once they are back; when that dir's
// owner is gone, Remove writes the originals back and only then removes the dir. These
// dirs are this scanner's alone (not kTempDirPrefixes): a restore that fails keeps its
// journal for the next try.
#pragma once

#include <memory>

#include "cleanup/host_scanners.h"

namespace storbed {

// Finds the journals of dead owners of this host under each of context.work_roots; Remove
// restores through context.sys_root and removes the dir through context.actions.
std::unique_ptr<LeftoverScanner> MakeTunablesScanner(const HostScanContext& context);

}  // namespace storbed
