// The `owner` file storbed writes into every directory it creates for a run
// (storbed-work-*), and the standalone agent into its tunables journal dir
// (storbed-tunables-*): which process made it, so `storbed cleanup` (and the next agent
// run) removes the directories of killed processes and never those of a live one.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "host_identity.h"  // ThisHostName

namespace storbed {

inline constexpr const char* kOwnerFileName = "owner";

struct OwnerMarker {
  int pid = 0;
  uint64_t start_ticks = 0;  // /proc/<pid>/stat field 22: defeats pid reuse
  std::string host;          // gethostname(): a directory on shared storage names its machine
};

// This process. Throws std::runtime_error when /proc/self/stat cannot be read.
OwnerMarker CurrentProcessOwner();

// One JSON line: {"pid":1234,"start_ticks":5678,"host":"h","program":"storbed"}.
std::string FormatOwnerMarker(const OwnerMarker& owner);
// nullopt when the text is not such a line (a marker without "program":"storbed" is
// another program's, not storbed's).
std::optional<OwnerMarker> ParseOwnerMarker(const std::string& text);

// Whether `owner` still runs: /proc/<pid>/stat names the same start time (a reused pid is
// another process). Says nothing of another host's owner: compare `host` first.
bool OwnerRuns(const OwnerMarker& owner, const std::string& proc_root = "/proc");

// Writes `dir`/owner for this process. Throws std::runtime_error naming the file.
void WriteOwnerMarker(const std::string& dir);

}  // namespace storbed
