// A snapshot of the processes under a /proc tree (the real /proc, or a fake one in tests):
// who is alive, their parents, command lines and open files. `storbed cleanup` decides
// from it whether a run's owner is gone and which QEMU is stray.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "owner_marker.h"

namespace storbed {

struct ProcessInfo {
  int pid = 0;
  int ppid = 0;
  uint64_t start_ticks = 0;
  std::string comm;
  std::vector<std::string> argv;        // /proc/<pid>/cmdline split at NULs
  std::vector<std::string> open_files;  // targets of /proc/<pid>/fd/* links
};

class ProcessTable {
 public:
  // Reads every numeric entry of `proc_root`; processes that exit mid-read are skipped,
  // and fds of processes we may not read are simply absent. `with_fds` reads fd links too.
  // Sorted by pid.
  static ProcessTable Read(const std::string& proc_root, bool with_fds);

  const std::vector<ProcessInfo>& processes() const { return processes_; }
  const ProcessInfo* Find(int pid) const;
  // True when `owner`'s pid runs and started at the same tick: the very process, not a
  // later one that got the same pid.
  bool IsAlive(const OwnerMarker& owner) const;
  // Seconds since the epoch when `p` started (boot time from <proc>/stat "btime" plus
  // field 22); nullopt when btime is unknown.
  std::optional<double> StartedAt(const ProcessInfo& p) const;

  // For tests that build a table by hand.
  void Add(ProcessInfo p) { processes_.push_back(std::move(p)); }
  void SetBootTime(uint64_t btime) { boot_time_ = btime; }

 private:
  std::vector<ProcessInfo> processes_;
  std::optional<uint64_t> boot_time_;
};

// True when `path` is `dir` or inside it (by path text, both made absolute and normal).
bool PathIsInside(const std::string& path, const std::string& dir);

}  // namespace storbed
