// The checks of everything a scenario names on this host, run by `storbed run --dry-run`
// and by the real run alike, before anything is created: the backing paths and their
// kind, a device to be written that the host is using, a PCI device to hand to a guest
// (passthrough/pci_safety.h), the kernel, its modules and the agent, and the free space
// for the backings storbed makes.
#pragma once

#include <cstdint>
#include <string>

#include "plan/run_options.h"
#include "scenario/scenario.h"

namespace storbed {

// Free space kept beyond the backings: the filesystem's own needs, results, images.
inline constexpr uint64_t kWorkDirMarginBytes = 512ull << 20;

// Throws ScenarioError "FILE: FIELD: reason" (or "--agent PATH: reason") at the first
// problem.
void CheckRunInputs(const Scenario& scenario, const RunOptions& options);

// "" when `path` may back a disk: an existing, non-empty regular file or block device, not
// on /proc or /sys; else the reason (FIFOs and character devices such as /dev/zero are
// refused).
std::string BackingPathProblem(const std::string& path);

// "" when `path` is a directory, or could be made one (its nearest existing ancestor is
// a directory); else the reason ("is a character device, not a directory", or which
// ancestor is in the way).
std::string DirectoryPathProblem(const std::string& path);

// "" when a SQLite history file at `path` can take a run's records when it ends: a
// writable regular file, or one that can be made in a writable directory; else the
// reason. A run found out only after its last job.
std::string HistoryFileProblem(const std::string& path);

// "" when this user may run the bare-metal target: attaching a loop device, dropping the
// page cache and setting a device's queue tunables need root.
std::string BareMetalHostProblem(bool root);

// "" when this host can trace block devices for job.trace (docs/tracing.md): root, and
// tracefs among `proc_filesystems` (/proc/filesystems' text); else what is missing.
std::string TraceHostProblem(bool root, const std::string& proc_filesystems);

}  // namespace storbed
