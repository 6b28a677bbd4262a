// One line of /proc/<pid>/stat, parsed. Shared by the owner marker a run writes and by
// `storbed cleanup`, which reads every process's line to tell live owners from dead ones.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace storbed {

struct ProcStat {
  int pid = 0;
  std::string comm;  // without the parentheses; may hold spaces and ')'
  char state = '?';
  int ppid = 0;
  // Field 22: clock ticks after boot when the process started. A pid is reused, a
  // (pid, start_ticks) pair is not, so owners are named by both.
  uint64_t start_ticks = 0;
};

// Parses one stat line; nullopt when it is malformed.
std::optional<ProcStat> ParseProcStat(const std::string& line);

}  // namespace storbed
