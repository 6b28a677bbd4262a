// IO engines: each keeps up to `iodepth` IOs in flight against an open target, takes
// offsets from an OffsetGenerator and records every completion's latency. One file per
// engine (engine_psync.cc, engine_uring.cc, ...), each registering its factory for its
// row of common/engine_table.h.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "histogram.h"
#include "io_buffer.h"
#include "job.h"
#include "job_runner.h"
#include "pattern.h"
#include "split_mix64.h"

namespace storbed {

// One completed IO as an engine saw it (job.trace): the agent's half of its path.
struct LoggedIo {
  uint64_t offset = 0;
  uint32_t bytes = 0;
  bool write = false;
  uint64_t queued_ns = 0;  // CLOCK_MONOTONIC when it began to count in flight (L0)
  uint64_t submit_ns = 0;  // ... just before the submit call that took it
  uint64_t seen_ns = 0;    // ... when the engine saw it complete
};

// When one IO began to count in flight (an async refill's first submit call, as fio counts
// an IO from when it is queued), when its own submit call began, and when it was seen
// complete. Its latency is seen - submit; the in-flight count runs from queued.
struct IoTimes {
  uint64_t queued_ns = 0, submit_ns = 0, seen_ns = 0;
};

// One thread's completed IOs for job.trace, up to `cap` (memory: 32 bytes an IO); the rest
// are only counted.
class IoLog {
 public:
  explicit IoLog(size_t cap) : cap_(cap) {}
  void Add(const LoggedIo& io) {
    if (ios_.size() < cap_)
      ios_.push_back(io);
    else
      ++not_logged_;
  }
  const std::vector<LoggedIo>& ios() const { return ios_; }
  uint64_t not_logged() const { return not_logged_; }
  size_t cap() const { return cap_; }

 private:
  size_t cap_;
  std::vector<LoggedIo> ios_;
  uint64_t not_logged_ = 0;
};

// What an engine needs for one IO phase. The fd stays owned by the caller.
struct EngineJob {
  int fd = -1;
  std::string target;  // path, for error messages
  Direction rw = Direction::Read;
  uint64_t bs = 4096;
  uint32_t iodepth = 1;
  Reap reap = Reap::Wait;     // io_uring, libaio: sleep for completions or poll for them
  uint32_t submit_batch = 0;  // io_uring, libaio: IOs per submit call; 0 = the engine's
  double runtime_s = 0;       // > 0: stop issuing after this long (passes repeat)
  uint64_t io_limit = 0;      // > 0: stop issuing after this many bytes
  uint32_t fsync_every = 0;   // writes: fsync after every N writes (0 = never)
  bool end_fsync = false;     // writes: one fsync after the last write, inside the phase
  uint32_t read_pct = 100;    // Mixed: percent of IOs that are reads
  uint64_t seed = 1;          // Mixed: direction draws; writes: part of every sector's stamp
  bool verify = false;        // reads: check every sector's stamp (offset and seed)
  bool huge_buffers = false;  // IO buffers on transparent huge pages (IoBuffers::Take)
  // mmap: the region IOs fall in (region_size 0 = the whole target), the bytes mapped at
  // a time (0 = the region) and the madvise hint for each mapped window.
  uint64_t region_offset = 0;
  uint64_t region_size = 0;
  uint64_t mmap_window = 0;
  AccessHint madvise = AccessHint::None;
  // numjobs: set by the runner when another thread of the job failed; IoBudget then
  // stops issuing, so the engine drains and returns. Not owned; null = never stops early.
  const std::atomic<bool>* stop = nullptr;
  // The thread's buffers, kept across the job's passes by the runner. Not owned; null:
  // the engine makes its own for this run.
  IoBuffers* buffers = nullptr;
  // job.trace: every completion is logged here. Not owned; null = not logged.
  IoLog* io_log = nullptr;
};

struct EngineStats {
  uint64_t ios = 0;
  uint64_t bytes = 0;
  double runtime_s = 0;   // first submission to last completion
  uint64_t start_ns = 0;  // CLOCK_MONOTONIC at the first submission
  uint64_t end_ns = 0;    // ... after the last completion (or the end fsync)
  Histogram latency;      // submission to completion, ns
  uint32_t max_in_flight = 0;
  double avg_depth = 0;  // in-flight IOs, time-weighted over [start_ns, end_ns]
  // ns spent with n IOs in flight, n = index, over the phase; empty when numjobs > 1 (the
  // threads' counts add up at instants no thread records).
  std::vector<double> time_at_depth_ns;
  double avg_submit_batch = 0;    // io_uring: IOs per io_uring_submit call
  double avg_complete_batch = 0;  // io_uring: completions per reap round
  uint64_t fsyncs = 0;            // successful fsync() calls
  Histogram fsync_latency;        // per successful fsync, ns
  // The first kFsyncLog successful fsyncs: when each returned, and its latency.
  static constexpr size_t kFsyncLog = 10000;
  std::vector<uint64_t> fsync_end_ns;
  std::vector<double> fsync_latency_us;
  std::vector<std::string> warnings;
  uint64_t reads = 0, writes = 0;             // completed IOs by direction
  uint64_t verified_bytes = 0;                // read bytes whose stamps were checked (verify)
  uint64_t mmap_calls = 0, munmap_calls = 0;  // mmap: window (re)maps
  uint64_t mmap_window_bytes = 0;             // mmap: bytes per window (page-aligned)
};

// The stats of numjobs threads as one: counts and histograms summed, [min start, max end],
// avg_depth the sum of each thread's time-weighted in-flight over that window, batch
// sizes weighted by calls, fsync log merged in time order, warnings de-duplicated.
EngineStats MergeEngineStats(const std::vector<EngineStats>& parts);

// The stats of passes run one after another as one: counts and histograms summed,
// runtime the sum of the passes' (the gaps between them, where the cache was dropped, are
// not IO time), avg_depth and batch sizes weighted by each pass's share, fsync log in order.
void AppendPassStats(EngineStats& total, EngineStats pass);

// Which way each IO goes: always job.rw for Read/Write; for Mixed a read with
// probability read_pct/100, drawn from a PRNG seeded by job.seed (same seed, same
// sequence).
class DirectionChooser {
 public:
  explicit DirectionChooser(const EngineJob& job);
  bool NextIsWrite();

 private:
  Direction rw_;
  uint32_t read_pct_;
  SplitMix64 draws_;
};

// Counts one completed IO of bs bytes at `offset` with its times into stats (latency,
// bytes, reads or writes) and job.io_log. A read of a verify job is checked sector by
// sector first: throws JobError "verify failed on <target>: block at offset <o>: sector
// ... (expected ...)".
void CountCompletion(const EngineJob& job, bool write, const uint8_t* data, uint64_t offset,
                     const IoTimes& times, EngineStats& stats);

// True when fd was opened with O_DIRECT.
bool OpenedDirect(int fd);

// `count` buffers of job.bs bytes: the runner's (job.buffers), else from `own`, which the
// engine keeps for the run.
std::span<uint8_t* const> TakeBuffers(const EngineJob& job, IoBuffers& own, size_t count);

// The integral of the in-flight count over time: Set() at every change (each submit
// and each reap, on CLOCK_MONOTONIC), Average() over the phase. The app's view: an IO
// counts from just before its submit syscall until the loop has seen its completion,
// so time the engine spends between reaping and resubmitting lowers the average.
class InFlightIntegral {
 public:
  void Set(uint64_t now_ns, uint32_t in_flight);
  // Integral / (end_ns - start_ns); 0 for an empty phase.
  double Average(uint64_t start_ns, uint64_t end_ns) const;
  // ns spent at each in-flight count up to `end_ns` (the count then held until the end).
  std::vector<double> TimeAtCount(uint64_t end_ns) const;

 private:
  uint64_t last_ns_ = 0;
  uint32_t in_flight_ = 0;
  long double integral_ = 0;          // request-ns
  std::vector<long double> time_at_;  // ns at each count, for the L0 distribution
};

// Closes the IO phase at `now`: its start (now when no IO was issued), end, runtime and
// the average in-flight depth over it.
void EndPhase(const InFlightIntegral& in_flight, uint64_t now, EngineStats& stats);

// The write jobs' fsync policy (fio's fsync=N and end_fsync). Engines call Wrote() per
// issued write and, when Due() says so, drain their in-flight writes and call Fsync().
class FsyncPolicy {
 public:
  explicit FsyncPolicy(const EngineJob& job);
  void Wrote() {
    ++since_last_;
    any_writes_ = true;
  }
  // True when fsync_every writes were issued since the last fsync: issue no more
  // before draining and calling Fsync().
  bool Due() const { return every_ > 0 && since_last_ >= every_; }
  // The final fsync, when end_fsync is set and writes were issued.
  bool EndDue() const { return end_ && any_writes_; }
  // fsync(fd), timed into stats. A failure is a warning (counted once per errno) and
  // leaves stats.fsyncs alone. Returns CLOCK_MONOTONIC after it returned.
  uint64_t Fsync(EngineStats& stats);
  // The same with another call standing in for fsync (mmap: msync); `name` is used in
  // its warning. `sync` returns 0 or -1 with errno set.
  uint64_t Sync(EngineStats& stats, const char* name, const std::function<int()>& sync);
  // True when writes were issued since the last (f)sync.
  bool Pending() const { return since_last_ > 0; }

 private:
  int fd_;
  std::string target_;
  uint32_t every_;
  bool end_;
  uint32_t since_last_ = 0;
  bool any_writes_ = false;
  int last_errno_ = 0;
};

// When to stop issuing: at runtime_s or io_limit when either is set (whichever comes
// first), otherwise after exactly one pass over the pattern's blocks. An io_limit that
// is not a multiple of bs is rounded up to whole IOs.
class IoBudget {
 public:
  IoBudget(const EngineJob& job, uint64_t blocks_per_pass, uint64_t start_ns);
  bool MayIssue(uint64_t now_ns) const;
  // Moves the runtime deadline to count from `start_ns`: engines call it at their
  // first submission, so runtime_s covers the IO phase and not the setup before it.
  void StartAt(uint64_t start_ns);
  void Issued() { ++issued_; }

 private:
  uint64_t bs_;
  uint64_t io_limit_;
  uint64_t runtime_ns_;
  uint64_t deadline_ns_;  // 0 = none
  const std::atomic<bool>* stop_;
  uint64_t one_pass_;  // 0 = not the stop rule
  uint64_t issued_ = 0;
};

class IoEngine {
 public:
  virtual ~IoEngine() = default;
  // Runs the IO phase. Throws JobError on a failed or short IO, naming target, offset,
  // syscall and errno text.
  virtual EngineStats Run(const EngineJob& job, OffsetGenerator& offsets) = 0;
};

using EngineFactory = std::unique_ptr<IoEngine> (*)();
// A static EngineRegistrar in each engine file makes its factory the agent's engine `e`,
// so adding an engine touches its row (common/engine_table.cc) and its own file only.
// agent_io is linked whole (guest-agent/CMakeLists.txt): the linker keeps every registrar.
struct EngineRegistrar {
  EngineRegistrar(Engine e, EngineFactory make);
};
// True when an engine file registered `e` in this build.
bool EngineBuiltIn(Engine e);
// The engine `e` names. Throws std::invalid_argument for one this build lacks.
std::unique_ptr<IoEngine> MakeEngine(Engine e);

// One synchronous engine's positioned call: `transfer` moves len bytes at off and returns
// the count, or -1 with errno set (pread/pwrite style); `flags` is handed to it.
struct SyncIo {
  const char* engine;      // in the "is synchronous" warnings
  const char* read_call;   // in error messages: "pread"
  const char* write_call;  // ... "pwrite"
  ssize_t (*transfer)(int fd, void* buf, size_t len, off_t off, bool write, int flags);
  int flags = 0;
};

// The synchronous engines' loop (engine_psync.cc): one call at a time, timed, counted and
// fsynced like every engine. Throws JobError on a failed or short IO.
EngineStats RunSyncEngine(const EngineJob& job, OffsetGenerator& offsets, const SyncIo& io);

// Submit and reap syscalls of an asynchronous engine, for its batch sizes.
struct BatchCounts {
  uint64_t submit_calls = 0, submitted = 0, reap_rounds = 0, reaped = 0;
};

// Closes an asynchronous engine's stats at `now`: the end-of-job fsync if due, the phase's
// start and end, its runtime, the time-weighted depth and the batch sizes.
void FinishAsyncStats(FsyncPolicy& fsync, const InFlightIntegral& in_flight,
                      const BatchCounts& batches, uint64_t now, EngineStats& stats);

// CLOCK_MONOTONIC in nanoseconds.
uint64_t MonotonicNs();

// A synchronous engine's warnings when the job asked for what only an asynchronous one
// does: "<engine> is synchronous: iodepth N ran at 1", and that reap poll does not apply.
void WarnSynchronous(const EngineJob& job, const std::string& engine, EngineStats& stats);

// One pause in a completion-polling loop: tells the CPU (and a hypervisor watching for
// spinning vCPUs) that this is a spin, without giving the CPU away.
inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

// "<target>: <syscall> at offset <o> failed: <strerror(err)>"
JobError IoError(const std::string& target, const std::string& syscall, uint64_t offset, int err);
// "<target>: <syscall> at offset <o> transferred <done> of <bs> bytes"
JobError ShortIoError(const std::string& target, const std::string& syscall, uint64_t offset,
                      uint64_t done, uint64_t bs);

}  // namespace storbed
