// The job a storbed agent runs: one IO stream against one target. Shared by the
// orchestrator and the agent so the two sides cannot drift.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "engine_table.h"

namespace storbed {

enum class Pattern { Sequential, Random, Gappy, Strided };
// Mixed: each IO is a read with probability read_pct/100 (fio rw=randrw, rwmixread).
enum class Direction { Read, Write, Mixed };
// What the page cache holds for the target when the job starts: cold (the target's pages
// dropped), cold-global (the whole machine's caches dropped, drop_caches=3), keep
// (untouched), warm (the whole region read first), partial (cached_fraction of its blocks,
// chosen with the seed, read first; the fraction really cached is measured with mincore).
enum class CacheState { Cold, ColdGlobal, Keep, Warm, Partial };
// Which blocks a random pattern favours (fio random_distribution).
enum class Distribution { Uniform, Zipf, HotCold };
// posix_fadvise / madvise hint on the target before the IO phase.
enum class AccessHint { None, Sequential, Random, WillNeed };
// How an asynchronous engine waits for completions: Wait sleeps in the kernel until one
// arrives; Poll checks the completion ring without sleeping (one CPU kept busy), so no
// wake-up latency sits between a completion and the next submission (fio:
// iodepth_batch_complete_min=0, libaio userspace_reap).
enum class Reap { Wait, Poll };

// Guest block-queue settings the agent applies to the target's disk before the job and
// reads back (-1 / "" = leave as is).
struct BlockTunables {
  int64_t read_ahead_kb = -1;
  std::string scheduler;
  int64_t nr_requests = -1;
  int64_t max_sectors_kb = -1;
  bool operator==(const BlockTunables&) const = default;
};

struct JobSpec {
  std::string name;            // e.g. "seq-read"
  std::string target;          // device or file path as seen by the agent
  // A filesystem target: `target` is a block device holding an ext4 or xfs filesystem
  // (prepared on the host); the agent mounts it and runs the job on `fs_file` inside it.
  // "" = the job runs on `target` itself.
  std::string filesystem;
  std::string fs_file = "storbed.dat";  // path inside the filesystem, relative
  Pattern pattern = Pattern::Sequential;
  Direction rw = Direction::Read;
  Engine engine = Engine::Psync;
  uint64_t bs = 4096;          // bytes per IO
  uint32_t iodepth = 1;        // in-flight IOs (psync is always 1)
  Reap reap = Reap::Wait;      // io_uring and libaio only
  uint32_t submit_batch = 0;   // io_uring and libaio: IOs per submit call; 0 = the engine's
  // fio numjobs: threads running the job at once, each with its own fd and engine. They
  // share the region (numjobs_split false) or each takes a contiguous, bs-aligned slice.
  uint32_t numjobs = 1;
  bool numjobs_split = false;
  uint64_t offset = 0;         // first byte of the region
  uint64_t size = 0;           // bytes of the region; 0 = target size - offset
  double runtime_s = 0;        // stop after this long; 0 = no time limit
  uint64_t io_limit = 0;       // stop after this many bytes; 0 = one pass over the region
  bool direct = true;          // O_DIRECT
  bool huge_buffers = false;   // IO buffers on transparent huge pages (madvise), not 4 KiB
  uint32_t gappy_read = 1;     // gappy: blocks read in a row ...
  uint32_t gappy_skip = 1;     // ... then blocks skipped (fio rw=read:<skip>)
  uint32_t random_run = 1;     // random, uniform: blocks per random offset (fio rw=randread:N)
  uint64_t seed = 1;           // random pattern seed
  CacheState cache = CacheState::Cold;
  uint32_t fsync_every = 0;    // write jobs: fsync after every N writes (fio fsync=N); 0 = never
  bool end_fsync = false;      // write jobs: one fsync when the IO phase ends (fio end_fsync)
  // Guest-side samplers during the IO phase (0 = off): /sys/block/X/inflight at the fast
  // period; diskstats, meminfo, vmstat and per-CPU iowait at the slow one.
  uint32_t inflight_sample_ms = 10;
  uint32_t stats_sample_ms = 100;
  // Follow every IO through the traced layers (docs/tracing.md): the block tracepoints of
  // the target's disk, and under a guest QEMU's trace events and the host device's.
  bool trace = false;
  // trace: also QEMU's block layer and host submissions (two more QEMU events per IO).
  bool trace_detail = false;

  uint32_t read_pct = 100;      // Mixed: percent of IOs that are reads (fio rwmixread)
  uint32_t stride_blocks = 2;   // Strided: distance between consecutive IOs, in blocks
  Distribution distribution = Distribution::Uniform;  // Random only
  double zipf_theta = 1.2;      // Zipf: skew (> 0, != 1)
  double hot_fraction = 0.2;    // HotCold: share of the region that is hot ...
  double hot_pct = 80;          // ... and the percent of IOs that go there
  AccessHint fadvise = AccessHint::None;  // posix_fadvise on the region before the IO phase
  AccessHint madvise = AccessHint::None;  // Mmap: madvise on each mapped window
  uint64_t mmap_window = 0;     // Mmap: bytes mapped at a time (remapped as the job moves); 0 = region
  bool verify = false;          // writes stamp offset+seed; reads check them byte for byte
  double cached_fraction = 0;   // Partial: fraction of the region's blocks to cache first
  uint32_t loops = 1;           // passes over the region (fio loops); runtime overrides
  // Drop the target's cached pages before every pass after the first too, as fio's
  // invalidate=1 does at each loop (the first pass starts as `cache` left it).
  bool invalidate_each_pass = false;
  bool invalidate_in_runtime = false;  // count each pass's drop in runtime, as fio does
  BlockTunables tunables;
  bool operator==(const JobSpec&) const = default;
};

// Name <-> enum, for JSON, scenarios and tables. Parse* throws std::invalid_argument
// naming the allowed values.
std::string ToString(Pattern p);
std::string ToString(Engine e);
std::string ToString(Direction d);
std::string ToString(CacheState c);
std::string ToString(Distribution d);
std::string ToString(AccessHint h);
std::string ToString(Reap r);
Pattern ParsePattern(const std::string& s);
Engine ParseEngine(const std::string& s);
Direction ParseDirection(const std::string& s);
CacheState ParseCacheState(const std::string& s);
Distribution ParseDistribution(const std::string& s);
AccessHint ParseAccessHint(const std::string& s);
Reap ParseReap(const std::string& s);

// The agent's read-back of the queue settings (JobResult::tunables_applied).
void to_json(nlohmann::json& j, const BlockTunables& t);
void from_json(const nlohmann::json& j, BlockTunables& t);

// The JSON names are the field rows' (common/job_fields.h), with "schema_version".
void to_json(nlohmann::json& j, const JobSpec& s);
// Reads schema 2 and, for results written before the rename, schema 1 names. Throws
// nlohmann::json::exception or std::invalid_argument on a bad document.
void from_json(const nlohmann::json& j, JobSpec& s);

}  // namespace storbed
