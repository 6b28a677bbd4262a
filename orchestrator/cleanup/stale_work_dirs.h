// Which storbed-work-* directories belong to runs that are gone. A run's TempDir writes
// an owner marker (execute/owner_marker.h); a directory is stale when that process is gone.
// A directory without a marker (an older storbed, or a crash right after mkdtemp) is
// stale only when nothing uses it and it has not changed for kUnmarkedMinAge.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "cleanup/loop_table.h"
#include "cleanup/process_table.h"

namespace storbed {

inline constexpr const char* kWorkDirPrefix = "storbed-work-";
inline constexpr std::chrono::minutes kUnmarkedMinAge{60};

enum class WorkDirState {
  Stale,      // owner gone, or unmarked, unused and old
  Live,       // owner running, or in use, or unmarked and recent
  Elsewhere,  // owner on another host: cannot be checked from here
};

struct WorkDirVerdict {
  std::string path;
  WorkDirState state = WorkDirState::Live;
  std::string reason;  // "owner pid 1234 gone", "owner pid 99 on host b; ..."
};

struct WorkDirContext {
  const ProcessTable& processes;  // read with fds
  const std::vector<AttachedLoop>& loops;
  std::string this_host;
  std::chrono::system_clock::time_point now;
};

// Judges every directory named storbed-work-* directly under each of `roots` (symlinks
// are never followed). Roots that do not exist give nothing.
std::vector<WorkDirVerdict> JudgeWorkDirs(const std::vector<std::string>& roots,
                                          const WorkDirContext& context);

// The stale ones only.
std::vector<WorkDirVerdict> StaleOnly(const std::vector<WorkDirVerdict>& verdicts);

}  // namespace storbed
