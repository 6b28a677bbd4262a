#include "job_runner.h"

#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <latch>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "access_hints.h"
#include "block_tunables.h"
#include "buffer_pieces.h"
#include "cache_control.h"
#include "engine.h"
#include "file_read.h"
#include "guest_sampler.h"
#include "input_file.h"
#include "io_buffer.h"
#include "job_trace.h"
#include "pattern.h"
#include "target_device.h"
#include "thp_setting.h"
#include "unique_fd.h"

namespace storbed {
namespace {

std::string JobLabel(const JobSpec& spec) {
  return "job '" + spec.name + "' on " + spec.target;
}

UniqueFd OpenTarget(const JobSpec& spec) {
  const bool writes = spec.rw != Direction::Read;
  int flags = (writes ? O_RDWR : O_RDONLY) | O_CLOEXEC;
  std::string how = writes ? "O_RDWR" : "O_RDONLY";
  if (spec.direct) {
    flags |= O_DIRECT;
    how += "|O_DIRECT";
  }
  UniqueFd fd(open(spec.target.c_str(), flags));
  if (!fd.valid()) {
    const int err = errno;
    std::string msg = "cannot open " + spec.target + ": open(" + how + ") failed: " +
                      std::strerror(err);
    if (err == EINVAL && spec.direct)
      msg += " (the filesystem does not support O_DIRECT, e.g. tmpfs; set direct=false)";
    throw JobError(msg);
  }
  return fd;
}

// The region's size in bytes, checked against the target. Throws JobError.
uint64_t RegionSize(const JobSpec& spec, int fd) {
  const uint64_t target_size = TargetSize(fd, spec.target);
  struct stat st;
  // A write job may grow a regular file; everything else must stay inside the target.
  const bool may_grow = spec.rw == Direction::Write && fstat(fd, &st) == 0 &&
                        S_ISREG(st.st_mode) && spec.size > 0;
  if (!may_grow && spec.offset >= target_size)
    throw JobError(JobLabel(spec) + ": offset " + std::to_string(spec.offset) +
                   " is at or past the end of the target (" + std::to_string(target_size) +
                   " bytes)");
  const uint64_t size = spec.size ? spec.size : target_size - spec.offset;
  if (!may_grow && spec.offset + size > target_size)
    throw JobError(JobLabel(spec) + ": region [" + std::to_string(spec.offset) + ", " +
                   std::to_string(spec.offset + size) + ") ends past the end of the target (" +
                   std::to_string(target_size) + " bytes)");
  if (size < spec.bs)
    throw JobError(JobLabel(spec) + ": region of " + std::to_string(size) +
                   " bytes is smaller than bs=" + std::to_string(spec.bs));
  return size;
}

void CheckSpec(const JobSpec& spec) {
  auto fail = [&](const std::string& field, const std::string& why) {
    throw JobSpecError(JobLabel(spec) + ": " + field + ": " + why);
  };
  if (spec.bs == 0) fail("bs", "must be > 0");
  if (spec.iodepth == 0) fail("iodepth", "must be >= 1");
  if (spec.numjobs < 1 || spec.numjobs > 64)
    fail("numjobs", "must be 1..64, got " + std::to_string(spec.numjobs));
  if (spec.read_pct > 100) fail("read_pct", "must be 0..100, got " + std::to_string(spec.read_pct));
  // O_DIRECT IO must be aligned to the logical block size; 512 is the smallest there is,
  // so this catches the sure failures early with a clearer message than EINVAL.
  if (spec.direct && (spec.bs % 512 != 0 || spec.offset % 512 != 0))
    fail("bs", "direct IO needs bs and offset in multiples of the device's logical block "
               "size (512 or 4096), got bs=" + std::to_string(spec.bs) + " offset=" +
               std::to_string(spec.offset));
  // open(2) of a FIFO waits for a writer forever; a character device (/dev/zero) is no
  // storage to measure.
  struct stat st {};
  if (!spec.target.empty() && stat(spec.target.c_str(), &st) != 0 && errno == ENOENT)
    fail("target", spec.target + " does not exist");
  if (!spec.target.empty() && stat(spec.target.c_str(), &st) == 0 && !S_ISREG(st.st_mode) &&
      !S_ISBLK(st.st_mode))
    fail("target", spec.target + " is " + FileKindName(st.st_mode) +
                       "; a target must be a block device or a regular file");
  if (const std::string why = WhyNotTraceable(spec, S_ISBLK(st.st_mode)); !why.empty())
    throw JobSpecError(JobLabel(spec) + ": " + why);
}

// One /proc/diskstats line of the target's device and when it was read.
struct Snapshot {
  std::optional<DiskCounters> counters;
  uint64_t ns = 0;
  std::string error;
};

Snapshot TakeSnapshot(const std::string& device) {
  Snapshot s;
  const std::optional<std::string> text = TryReadFile("/proc/diskstats");
  s.ns = MonotonicNs();
  if (!text) {
    s.error = "cannot read /proc/diskstats";
    return s;
  }
  try {
    s.counters = FindDisk(*text, device);
    if (!s.counters) s.error = "device " + device + " is not in /proc/diskstats";
  } catch (const std::exception& e) {
    s.error = e.what();
  }
  return s;
}

BlockStats BlockDelta(const TargetDevice& dev, const Snapshot& before, const Snapshot& after,
                      const std::string& target) {
  if (!dev.name) return UnavailableBlockStats("no block device under " + target + ": " + dev.reason);
  if (!before.counters || !after.counters)
    return UnavailableBlockStats(!before.error.empty() ? before.error : after.error);
  return DiffDiskCounters(*before.counters, *after.counters,
                          double(after.ns - before.ns) / 1e9);
}

// Each successful fsync's latency at the time it returned: JobResult has no fsync
// latency field, and the IO latency histogram must not mix fsyncs in.
Timeline FsyncTimeline(const EngineStats& stats) {
  Timeline t{.name = "app.fsync.latency", .unit = "us", .t_s = {}, .value = {}};
  for (size_t i = 0; i < stats.fsync_end_ns.size() && i < stats.fsync_latency_us.size(); ++i)
    t.Add(double(stats.fsync_end_ns[i] - stats.start_ns) / 1e9, stats.fsync_latency_us[i]);
  return t;
}

// One numjobs thread: its fd, its part of the region and its own engine and offsets.
struct Worker {
  UniqueFd fd;
  uint64_t offset = 0;
  uint64_t size = 0;
  std::unique_ptr<OffsetGenerator> offsets;
  std::unique_ptr<IoEngine> engine;
  IoBuffers buffers;  // the same at every pass
  std::unique_ptr<IoLog> io_log;  // job.trace: the thread's completed IOs
};

// Thread i of spec.numjobs: the whole region, or with numjobs_split the i-th bs-aligned
// slice (the last one takes the remainder). Pattern seeds are seed + i so random orders
// differ between threads; thread 0 runs exactly what numjobs=1 runs. Throws JobError.
std::vector<Worker> MakeWorkers(const JobSpec& spec, UniqueFd first_fd, uint64_t size) {
  const uint32_t n = spec.numjobs;
  uint64_t slice = size;
  if (spec.numjobs_split) {
    slice = size / n / spec.bs * spec.bs;
    if (slice == 0)
      throw JobError(JobLabel(spec) + ": region of " + std::to_string(size) +
                     " bytes cannot be split into numjobs=" + std::to_string(n) +
                     " slices of at least bs=" + std::to_string(spec.bs));
  }
  std::vector<Worker> workers(n);
  for (uint32_t i = 0; i < n; ++i) {
    Worker& w = workers[i];
    w.fd = i == 0 ? std::move(first_fd) : OpenTarget(spec);
    w.offset = spec.offset + (spec.numjobs_split ? i * slice : 0);
    w.size = !spec.numjobs_split ? size : i + 1 < n ? slice : size - (n - 1) * slice;
    JobSpec part = spec;
    part.offset = w.offset;
    part.seed = spec.seed + i;
    try {
      w.offsets = MakeOffsetGenerator(part, w.size);
      w.engine = MakeEngine(spec.engine);
      if (spec.trace) w.io_log = std::make_unique<IoLog>(kTraceLogCap / n);
    } catch (const std::invalid_argument& e) {
      throw JobError(JobLabel(spec) + ": " + e.what());
    }
  }
  return workers;
}

}  // namespace

AgentPlace PlaceOf(const std::string& layer) {
  return layer == kGuestBlockLayer ? AgentPlace::Guest : AgentPlace::Host;
}

Prepared PrepareTarget(const PrepareRequest& request, const std::string& layer) {
  const CachePrepared p =
      PrepareCache(request.target, request.cache, RealCacheSystem(), PlaceOf(layer));
  Prepared out{.target = request.target, .prepare_s = p.seconds, .steps = p.StepsText()};
  if (!p.scope.empty()) out.steps += "; dropped: " + p.scope;
  // Prepared has no warnings field: failed steps are named in the steps text.
  for (const auto& w : p.Warnings()) out.steps += "; " + w;
  return out;
}

namespace {

bool SetsTunables(const BlockTunables& t) {
  return t.read_ahead_kb >= 0 || !t.scheduler.empty() || t.nr_requests >= 0 ||
         t.max_sectors_kb >= 0;
}

// Writes back, when the job ends (or throws), the original value of every queue setting
// the host agent changed: the host's queues are not storbed's to keep.
// A recorder is told before the first write and after the last restore, so its journal
// is only removed once the queue holds the originals again.
class TunablesRestore {
 public:
  TunablesRestore(std::string device, const BlockTunables& wanted, const BlockTunables& original,
                  TunablesRecorder* recorder)
      : device_(std::move(device)), recorder_(recorder) {
    if (wanted.read_ahead_kb >= 0) restore_.read_ahead_kb = original.read_ahead_kb;
    if (!wanted.scheduler.empty()) restore_.scheduler = original.scheduler;
    if (wanted.nr_requests >= 0) restore_.nr_requests = original.nr_requests;
    if (wanted.max_sectors_kb >= 0) restore_.max_sectors_kb = original.max_sectors_kb;
    if (recorder_) recorder_->Changing(Journal());
  }
  ~TunablesRestore() {
    try {
      ApplyBlockTunables(device_, restore_);
      if (recorder_) recorder_->Restored();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "storbed-agent: warning: cannot restore the queue settings of %s: %s\n",
                   device_.c_str(), e.what());
    }
  }
  TunablesRestore(const TunablesRestore&) = delete;
  TunablesRestore& operator=(const TunablesRestore&) = delete;

 private:
  // The queue's own disk (a partition has none) and its number, as a later run checks.
  TunablesJournal Journal() const {
    const auto queue = QueueDir(device_);
    const std::string disk =
        queue ? std::filesystem::path(*queue).parent_path().filename().string() : device_;
    std::string number = ReadFileOrEmpty("/sys/block/" + disk + "/dev");
    while (!number.empty() && number.back() == '\n') number.pop_back();
    return {.device = disk, .dev_number = number, .original = restore_};
  }

  std::string device_;
  BlockTunables restore_;
  TunablesRecorder* recorder_;
};

bool IsBlockDevice(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0 && S_ISBLK(st.st_mode);
}

// Queue tunables before the target is opened: a file takes its readahead window from
// the queue's read_ahead_kb at open(), so setting it later only affects the next open.
// Always read back, so every result records the settings it ran with. On the host, a
// file's device is the host's own disk: only a device named as the target is written,
// and what was written is restored after the job.
// `restore` is set when there is something to write back.
void ApplyTunables(const JobSpec& spec, const TargetDevice& dev, const std::string& layer,
                   JobResult& result, std::optional<TunablesRestore>& restore,
                   TunablesRecorder* recorder) {
  if (!dev.name) {
    if (SetsTunables(spec.tunables))
      throw JobError(JobLabel(spec) + ": block tunables need a block device: " + dev.reason);
    return;
  }
  std::vector<std::string> tunable_warnings;
  BlockTunables wanted = spec.tunables;
  if (layer == kHostDeviceLayer && SetsTunables(wanted)) {
    if (!IsBlockDevice(spec.target)) {
      result.warnings.push_back("block tunables not applied: the target " + spec.target +
                                " is a file, and the host's " + *dev.name +
                                " under it is not the agent's to change; name a block device "
                                "as the target to set them");
      wanted = BlockTunables{};
    } else {
      const BlockTunables original = ApplyBlockTunables(*dev.name, BlockTunables{});
      restore.emplace(*dev.name, wanted, original, recorder);
    }
  }
  result.tunables_applied = ApplyBlockTunables(*dev.name, wanted, "/sys", &tunable_warnings);
  for (auto& w : tunable_warnings) result.warnings.push_back(std::move(w));
}

// What the figures will not show by themselves: holes, pollers sharing CPUs, dirty data.
void WarnBeforeIo(const JobSpec& spec, int fd, uint64_t size, JobResult& result) {
  if (spec.rw != Direction::Write)
    if (auto hole = FirstHole(fd, spec.offset, spec.offset + size))
      result.warnings.push_back(
          "target has holes: reads of holes never reach the device (first hole at byte " +
          std::to_string(*hole) + ")");
  // Each poller holds a CPU: with more of them than CPUs they take turns, and a completion
  // waits for its poller's next turn, which is what polling was meant to take out.
  const unsigned cpus = std::thread::hardware_concurrency();
  if (spec.reap == Reap::Poll && cpus > 0 && spec.numjobs > cpus)
    result.warnings.push_back("reap poll with numjobs " + std::to_string(spec.numjobs) + " on " +
                              std::to_string(cpus) +
                              " CPUs: the pollers take turns, so completions wait again");
  if (spec.rw != Direction::Read && (!spec.direct || spec.engine == Engine::Mmap))
    result.warnings.push_back(
        "buffered writes: part of the data may still be in the page cache when the job ends");
}

// Before the IO phase and outside its clock (DESIGN: preparation is never runtime).
void PrepareCacheAndHints(const JobSpec& spec, uint64_t size, AgentPlace place,
                          const std::vector<Worker>& workers, JobResult& result) {
  const CachePrepared prepared = PrepareCache(spec.target, spec.cache, RealCacheSystem(), place,
                                              CacheRegionFor(spec, size));
  result.cache_scope = prepared.scope;
  result.prepare_s = prepared.seconds;
  result.prepare_steps = prepared.StepsText();
  result.cached_fraction = prepared.cached_fraction;
  for (auto& w : prepared.Warnings()) result.warnings.push_back(std::move(w));
  // The hint goes on the fds the engines use, after preparation (which sets its own).
  if (spec.fadvise != AccessHint::None) {
    try {
      for (const Worker& w : workers) ApplyFadvise(w.fd.get(), w.offset, w.size, spec.fadvise);
    } catch (const std::runtime_error& e) {
      throw JobError(JobLabel(spec) + ": " + e.what());
    }
  }
}

// The engine's view of one worker's share of the whole job.
EngineJob WholeJobFor(const JobSpec& spec, Worker& w, std::atomic<bool>* stop) {
  // The engine seed stays the job's: writes stamp it and verify reads check it.
  return EngineJob{.fd = w.fd.get(),
                   .target = spec.target,
                   .rw = spec.rw,
                   .bs = spec.bs,
                   .iodepth = spec.iodepth,
                   .reap = spec.reap,
                   .submit_batch = spec.submit_batch,
                   .runtime_s = spec.runtime_s,
                   .io_limit = spec.io_limit,
                   .fsync_every = spec.fsync_every,
                   .end_fsync = spec.end_fsync,
                   .read_pct = spec.read_pct,
                   .seed = spec.seed,
                   .verify = spec.verify,
                   .huge_buffers = spec.huge_buffers,
                   .region_offset = w.offset,
                   .region_size = w.size,
                   .mmap_window = spec.mmap_window,
                   .madvise = spec.madvise,
                   .stop = stop,
                   .buffers = &w.buffers,
                   .io_log = w.io_log.get()};
}

// One pass of a job run in passes (loops > 1 or invalidate_each_pass): each engine stops
// at the end of its slice of the region (or io_size), or when the runtime left is used up.
struct PassLimits {
  double runtime_left_s = 0;  // 0: no time limit
};

// ... and of one pass, when `pass` is given.
EngineJob EngineJobFor(const JobSpec& spec, Worker& w, std::atomic<bool>* stop,
                       const PassLimits* pass) {
  EngineJob job = WholeJobFor(spec, w, stop);
  if (pass) {
    job.runtime_s = pass->runtime_left_s;
    // Whole blocks: a partial last block would start the next pass's pattern.
    job.io_limit = spec.io_limit ? spec.io_limit : w.size / spec.bs * spec.bs;
  }
  return job;
}

// Runs every worker on its own thread, released together once the sampler has started.
// Like fio, runtime and io_limit apply to each thread: numjobs=4 with io_limit=1G moves
// 4G. The engines take their own runtime clock from their first submission.
// `sampler` is started as the threads are released when `window.start`, and stopped
// after them when `window.stop` (passes share one sampler window).
struct SamplerWindow {
  bool start = true;
  bool stop = true;
};
EngineStats RunWorkers(const JobSpec& spec, std::vector<Worker>& workers, GuestSampler& sampler,
                       const PassLimits* pass = nullptr, SamplerWindow window = {}) {
  std::atomic<bool> stop{false};
  std::vector<EngineStats> parts(workers.size());
  std::exception_ptr first_error;
  std::mutex error_mu;
  // Threads are created before the clock starts and released together.
  std::latch go(std::ptrdiff_t(workers.size()) + 1);
  {
    std::vector<std::jthread> threads;
    threads.reserve(workers.size());
    try {
      for (size_t i = 0; i < workers.size(); ++i) {
        threads.emplace_back([&, i] {
          const EngineJob job = EngineJobFor(spec, workers[i], &stop, pass);
          go.arrive_and_wait();
          try {
            parts[i] = workers[i].engine->Run(job, *workers[i].offsets);
          } catch (...) {
            // The others stop issuing, drain and return; the first error wins.
            stop = true;
            std::lock_guard lock(error_mu);
            if (!first_error) first_error = std::current_exception();
          }
        });
      }
      if (window.start) sampler.Start();
    } catch (...) {
      // Release the threads already waiting; they see stop and return at once.
      stop = true;
      go.count_down(std::ptrdiff_t(workers.size() - threads.size()) + 1);
      throw;  // the jthreads join on the way out
    }
    go.count_down();
  }
  if (window.stop) sampler.Stop();
  if (first_error) std::rethrow_exception(first_error);
  return parts.size() == 1 ? std::move(parts[0]) : MergeEngineStats(parts);
}

bool RunsInPasses(const JobSpec& spec) {
  return spec.loops > 1 || spec.invalidate_each_pass;
}

// loops passes, or passes until runtime is used up. With invalidate_each_pass the target's
// pages are dropped before every pass after the first (the first starts as the cache
// setting left it), each drop timed into result.invalidations_s and kept out of the
// runtime unless invalidate_in_runtime asks for fio's accounting.
EngineStats RunPasses(const JobSpec& spec, uint64_t size, std::vector<Worker>& workers,
                      GuestSampler& sampler, JobResult& result) {
  EngineStats total;
  const bool time_based = spec.runtime_s > 0;
  double runtime_left = spec.runtime_s;
  for (uint32_t pass = 0; time_based ? runtime_left > 0 : pass < spec.loops; ++pass) {
    if (pass > 0 && spec.invalidate_each_pass) {
      const CachePrepared drop = PrepareCache(spec.target, CacheState::Cold, RealCacheSystem(),
                                              AgentPlace::Host, CacheRegionFor(spec, size));
      result.invalidations_s.push_back(drop.seconds);
      for (auto& w : drop.Warnings())
        if (std::find(result.warnings.begin(), result.warnings.end(), w) == result.warnings.end())
          result.warnings.push_back(std::move(w));
      if (spec.invalidate_in_runtime) {
        total.runtime_s += drop.seconds;
        runtime_left -= drop.seconds;
        if (time_based && runtime_left <= 0) break;
      }
    }
    const PassLimits limits{.runtime_left_s = time_based ? runtime_left : 0};
    EngineStats done =
        RunWorkers(spec, workers, sampler, &limits, {.start = pass == 0, .stop = false});
    const bool moved = done.ios > 0;
    runtime_left -= done.runtime_s;
    AppendPassStats(total, std::move(done));
    ++result.passes;
    if (!moved) break;  // a pass that could issue nothing: the next would not either
  }
  sampler.Stop();
  return total;
}

// The engines' figures into the result.
void FillFromStats(const JobSpec& spec, EngineStats& stats, JobResult& result) {
  result.ios = stats.ios;
  result.bytes = stats.bytes;
  result.runtime_s = stats.runtime_s;
  if (stats.runtime_s > 0) {
    result.iops = double(stats.ios) / stats.runtime_s;
    result.mib_s = double(stats.bytes) / double(1 << 20) / stats.runtime_s;
  }
  result.latency = stats.latency.Summarize();
  result.latency_histogram = stats.latency.Buckets();
  result.app_avg_depth = stats.avg_depth;
  result.app_inflight_ns = stats.time_at_depth_ns;
  result.avg_submit_batch = stats.avg_submit_batch;
  result.avg_complete_batch = stats.avg_complete_batch;
  if (RowOf(spec.engine).async) result.reap = ToString(spec.reap);
  result.fsyncs = stats.fsyncs;
  result.reads = stats.reads;
  result.writes = stats.writes;
  result.verified_bytes = stats.verified_bytes;
  result.io_start_ns = stats.start_ns;
  result.io_end_ns = stats.end_ns;
  for (auto& w : stats.warnings) result.warnings.push_back(std::move(w));
  // JobResult has no field for the remaps, and they explain mmap's figures.
  if (stats.mmap_calls > 0)
    result.warnings.push_back("mmap: " + std::to_string(stats.mmap_calls) + " maps, " +
                              std::to_string(stats.munmap_calls) + " unmaps of " +
                              std::to_string(stats.mmap_window_bytes) + "-byte windows");
}

// huge_buffers: what the kernel gave, and a warning when it is not all of it (THP off, or
// memory too fragmented for whole huge pages).
void ReportHugeBuffers(const JobSpec& spec, const std::vector<Worker>& workers, JobResult& result) {
  if (!spec.huge_buffers) return;
  for (const Worker& w : workers) {
    const IoBuffers::HugePageUse use = w.buffers.HugePages();
    result.huge_buffer_bytes += use.huge;
    result.buffer_bytes_mapped += use.mapped;
  }
  if (result.huge_buffer_bytes >= result.buffer_bytes_mapped) return;
  const std::string setting = ReadThpSetting();
  result.warnings.push_back("huge_buffers: " + std::to_string(result.huge_buffer_bytes >> 10) +
                            " of " + std::to_string(result.buffer_bytes_mapped >> 10) +
                            " KiB of the IO buffers are on huge pages, the rest on 4 KiB pages "
                            "(/sys/kernel/mm/transparent_hugepage/enabled: " +
                            (setting.empty() ? "unreadable" : setting) + ")");
}

// O_DIRECT: the device gets the buffers' own pages, so their physical pieces decide how
// many requests each IO becomes. Measured after the IO phase, outside its time.
void ReportBufferPieces(const JobSpec& spec, const TargetDevice& dev,
                        const std::vector<Worker>& workers, JobResult& result) {
  if (!spec.direct || spec.engine == Engine::Mmap || !dev.name || workers.empty()) return;
  std::vector<uint8_t*> buffers;
  for (const Worker& w : workers)
    for (uint8_t* b : w.buffers.Held()) buffers.push_back(b);
  const auto pieces =
      MeasureBufferPiecesOn(buffers, workers.front().buffers.BufferSize(), *dev.name);
  if (!pieces) return;  // no frame numbers (not root) or no queue limits: not measured
  result.buffer_pieces = *pieces;
  if (std::string w = DescribeSplitBuffers(*pieces, *dev.name); !w.empty())
    result.warnings.push_back(std::move(w));
}

}  // namespace

JobResult RunJob(const JobSpec& spec, const std::string& layer, const JobTracing& tracing,
                 TunablesRecorder* recorder) {
  CheckSpec(spec);
  JobResult result;
  result.job = spec.name;
  result.target = spec.target;
  const TargetDevice dev = ResolveTargetDevice(spec.target);
  // Set up before anything is changed or read: a host that cannot trace runs nothing.
  std::optional<TracedDisk> traced_disk;
  std::unique_ptr<BlockTrace> trace;
  if (spec.trace) {
    traced_disk = TracedDiskOf(dev);
    const BlockTraceStarter start =
        tracing.start ? tracing.start : RealBlockTraceStarter(tracing.private_mount);
    try {
      trace = start({.major = traced_disk->major,
                     .minor = traced_disk->minor,
                     .buffer_kb_per_cpu = TraceBufferKbPerCpu(MemAvailableKb(),
                                                              std::thread::hardware_concurrency()),
                     .private_mount = tracing.private_mount});
    } catch (const BlockTraceSetupError& e) {
      throw JobError(JobLabel(spec) + ": trace: " + e.what());
    }
  }
  std::optional<TunablesRestore> restore;  // destroyed last: after the target is closed
  ApplyTunables(spec, dev, layer, result, restore, recorder);

  UniqueFd fd = OpenTarget(spec);
  const uint64_t size = RegionSize(spec, fd.get());
  WarnBeforeIo(spec, fd.get(), size, result);
  std::vector<Worker> workers = MakeWorkers(spec, std::move(fd), size);
  PrepareCacheAndHints(spec, size, PlaceOf(layer), workers, result);
  // Before the engines take their buffers; the guest's own mode comes back after the job.
  const ThpMadviseForJob thp(spec.huge_buffers && PlaceOf(layer) == AgentPlace::Guest);
  if (thp.changed())
    result.prepare_steps = (result.prepare_steps.empty() || result.prepare_steps == "none"
                                ? ""
                                : result.prepare_steps + ", ") +
                           "thp=madvise";

  const Snapshot before = dev.name ? TakeSnapshot(*dev.name) : Snapshot{};
  if (dev.name) {
    const BlkMqShape mq = ReadBlkMqShape(*dev.name, RealTextSource());
    result.nr_hw_queues = mq.nr_hw_queues;
    result.nr_tags = mq.nr_tags;
  }
  // The sampler's files are opened and its baseline read before the first IO, so the
  // IO phase pays only for its periodic preads.
  GuestSampler sampler({.device = dev.name,
                        .fast_ms = spec.inflight_sample_ms,
                        .slow_ms = spec.stats_sample_ms},
                       RealTextSource());
  if (trace) trace->Begin();
  EngineStats stats = RunsInPasses(spec) ? RunPasses(spec, size, workers, sampler, result)
                                          : RunWorkers(spec, workers, sampler);
  const Snapshot after = dev.name ? TakeSnapshot(*dev.name) : Snapshot{};
  if (trace) {
    std::vector<const IoLog*> logs;
    for (const Worker& w : workers) logs.push_back(w.io_log.get());
    JobTraceOutcome joined = JoinJobTrace(logs, trace->Stop(), *traced_disk,
                                          PlaceOf(layer) == AgentPlace::Guest
                                              ? kGuestBlockLayer
                                              : "host block layer");
    result.io_trace = joined.summary;
    if (!joined.summary.complete)
      result.warnings.push_back("trace cut short: " + joined.summary.why_incomplete);
    if (tracing.ios) *tracing.ios = std::move(joined.ios);
  }

  // Timelines and sampler warnings before the engines' (the order results always had).
  result.timelines = sampler.Timelines(stats.start_ns);
  if (!stats.fsync_end_ns.empty()) result.timelines.push_back(FsyncTimeline(stats));
  for (const auto& w : sampler.warnings()) result.warnings.push_back(w);
  FillFromStats(spec, stats, result);
  ReportBufferPieces(spec, dev, workers, result);
  ReportHugeBuffers(spec, workers, result);  // its warning last, where the tests look
  result.block = BlockDelta(dev, before, after, spec.target);
  result.block.layer = layer;
  return result;
}

}  // namespace storbed
