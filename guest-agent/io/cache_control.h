// Cache preparation before a job: a cold start empties the page cache of the target so
// reads reach the device. Each step is timed; a failed step is a warning, because a
// job on a warm cache is still a result, only a less trustworthy one.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "job.h"

namespace storbed {

// The host-wide side effects of a cold start, behind an interface so unit tests do
// not flush the machine they run on.
class CacheSystem {
 public:
  virtual ~CacheSystem() = default;
  virtual void Sync() = 0;
  // Writes `value` to /proc/sys/vm/drop_caches; the errno text on failure.
  virtual std::optional<std::string> DropCaches(const std::string& value) = 0;
};
CacheSystem& RealCacheSystem();

struct CacheStep {
  std::string name;     // "sync", "drop_caches=3", "fadvise(DONTNEED)", "BLKFLSBUF"
  double seconds = 0;
  std::string error;    // empty when the step worked
};

struct CachePrepared {
  double seconds = 0;   // all steps
  std::vector<CacheStep> steps;
  // "sync (1.2 ms), drop_caches=3 (30.0 ms), fadvise(DONTNEED) (0.0 ms)": steps that worked.
  std::string StepsText() const;
  // "drop_caches=3 failed: Permission denied": one per failed step.
  std::vector<std::string> Warnings() const;
};

// Cold: sync, drop_caches=3, fadvise(DONTNEED) on the target and BLKFLSBUF when it is
// a block device. Keep: nothing. Throws JobError only when the target cannot be opened.
CachePrepared PrepareCache(const std::string& target, CacheState state, CacheSystem& sys);

}  // namespace storbed
