// Cache preparation before a job: a cold start empties the page cache of the target so
// reads reach the device; warm and partial starts then read all or a seeded share of the
// region through the page cache, and mincore measures what really stayed resident.
// Each step is timed; a failed step is a warning, because a job on a warm cache is still
// a result, only a less trustworthy one.
#pragma once

#include <cstdint>
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

// Where the agent runs. A guest is ours, so emptying all its caches harms nobody; the
// host's page cache belongs to every tenant of the machine.
enum class AgentPlace { Guest, Host };

// What a cold start emptied (JobResult::cache_scope): "target" (only the target's pages),
// "guest" (drop_caches=3 in the guest, which is ours), "host" (drop_caches=3 on the
// host: every tenant's cache, done only for cache cold-global); "" for keep.
std::string CacheScope(CacheState state, AgentPlace place);

struct CacheStep {
  std::string name;     // "sync", "drop_caches=3", "fadvise(DONTNEED)", "BLKFLSBUF"
  double seconds = 0;
  std::string error;    // empty when the step worked
};

struct CachePrepared {
  double seconds = 0;   // all steps
  std::vector<CacheStep> steps;
  // Share of the region's pages resident after preparation, by mincore; -1 = not measured
  // (Keep, or the measurement failed: then a failed "mincore" step says why).
  double cached_fraction = -1;
  std::string scope;    // CacheScope()
  // "sync (1.2 ms), drop_caches=3 (30.0 ms), fadvise(DONTNEED) (0.0 ms)": steps that worked.
  std::string StepsText() const;
  // "drop_caches=3 failed: Permission denied": one per failed step.
  std::vector<std::string> Warnings() const;
};

// The part of the target a warm or partial start reads, and how.
struct CacheRegion {
  uint64_t offset = 0;          // first byte
  uint64_t size = 0;            // bytes; 0 = to the end of the target
  // Partial: the piece that is cached or not as a whole, normally the job's bs. Rounded up
  // to whole pages: a page is the smallest thing the page cache holds.
  uint64_t unit = 4096;
  double cached_fraction = 0;   // Partial: share of the region's units to read
  uint64_t seed = 1;            // Partial: which units
};
// The region, unit (bs), fraction and seed of a job over `region_size` bytes.
CacheRegion CacheRegionFor(const JobSpec& spec, uint64_t region_size);

// Cold on the host: fsync and fadvise(DONTNEED) of the target, plus BLKFLSBUF when it
// is a block device; nothing else of the machine is touched. Cold in a guest, and
// cold-global anywhere: sync and drop_caches=3 first. Warm: a cold start, then the whole
// region read with buffered 1 MiB reads. Partial: a cold start, then a seeded choice of
// round(cached_fraction * units) units read with buffered preads, readahead off. All but
// keep end by measuring cached_fraction. Keep: nothing. Throws JobError only when the
// target cannot be opened or cached_fraction is outside [0, 1]; a failed read or
// measurement is a failed step.
CachePrepared PrepareCache(const std::string& target, CacheState state, CacheSystem& sys,
                           AgentPlace place, const CacheRegion& region = {});

// Share of the pages of [offset, offset + size) of the open file or block device that are
// in the page cache: mmap(PROT_READ, MAP_SHARED) + mincore, a window at a time (mincore
// does not fault pages in). Throws JobError naming the syscall and errno text.
double ResidentFraction(int fd, uint64_t offset, uint64_t size);

}  // namespace storbed
