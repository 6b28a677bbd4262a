// Which of the directories storbed makes (storbed-work-*, storbed-agent-*) belong to runs
// that are gone. A run's TempDir writes an owner marker (common/owner_marker.h); a
// directory is stale when that process (pid and start time) is gone. A directory without a
// marker is never storbed's to remove, however old: a user may have named one so.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "cleanup/loop_table.h"
#include "cleanup/process_table.h"

namespace storbed {

// Every prefix a storbed TempDir is made with: the run's work dir and the bare-metal
// agent's dir (execute/bare_metal_target.cc). A new kind of temp dir adds its row here.
inline constexpr const char* kTempDirPrefixes[] = {"storbed-work-", "storbed-agent-"};

enum class WorkDirState {
  Stale,      // owner gone
  Live,       // owner running, or no owner mark (not provably storbed's)
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
};

// Judges every directory named with one of kTempDirPrefixes directly under each of `roots`
// (symlinks are never followed). Roots that do not exist give nothing.
std::vector<WorkDirVerdict> JudgeWorkDirs(const std::vector<std::string>& roots,
                                          const WorkDirContext& context);

// The stale ones only.
std::vector<WorkDirVerdict> StaleOnly(const std::vector<WorkDirVerdict>& verdicts);

}  // namespace storbed
