#include "engine.h"

#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cassert>
#include <cerrno>
#include <cstring>
#include <map>
#include <stdexcept>

#include "io_buffer.h"

namespace storbed {

IoBudget::IoBudget(const EngineJob& job, uint64_t blocks_per_pass, uint64_t start_ns)
    : bs_(job.bs),
      io_limit_(job.io_limit),
      runtime_ns_(job.runtime_s > 0 ? uint64_t(job.runtime_s * 1e9) : 0),
      deadline_ns_(runtime_ns_ ? start_ns + runtime_ns_ : 0),
      stop_(job.stop),
      one_pass_(job.runtime_s > 0 || job.io_limit > 0 ? 0 : blocks_per_pass) {}

bool IoBudget::MayIssue(uint64_t now_ns) const {
  if (stop_ && stop_->load(std::memory_order_relaxed)) return false;
  if (io_limit_ > 0 && issued_ * bs_ >= io_limit_) return false;
  if (deadline_ns_ > 0 && now_ns >= deadline_ns_) return false;
  if (one_pass_ > 0 && issued_ >= one_pass_) return false;
  return true;
}

void InFlightIntegral::Set(uint64_t now_ns, uint32_t in_flight) {
  if (last_ns_ != 0 && now_ns > last_ns_) {
    integral_ += (long double)(in_flight_) * (now_ns - last_ns_);
    if (time_at_.size() <= in_flight_) time_at_.resize(in_flight_ + 1, 0);
    time_at_[in_flight_] += (long double)(now_ns - last_ns_);
  }
  last_ns_ = now_ns;
  in_flight_ = in_flight;
}

std::vector<double> InFlightIntegral::TimeAtCount(uint64_t end_ns) const {
  std::vector<double> out(time_at_.begin(), time_at_.end());
  if (last_ns_ != 0 && end_ns > last_ns_) {
    if (out.size() <= in_flight_) out.resize(in_flight_ + 1, 0);
    out[in_flight_] += double(end_ns - last_ns_);
  }
  return out;
}

double InFlightIntegral::Average(uint64_t start_ns, uint64_t end_ns) const {
  if (end_ns <= start_ns) return 0;
  return double(integral_ / (long double)(end_ns - start_ns));
}

FsyncPolicy::FsyncPolicy(const EngineJob& job)
    : fd_(job.fd),
      target_(job.target),
      every_(job.rw != Direction::Read ? job.fsync_every : 0),
      end_(job.rw != Direction::Read && job.end_fsync) {}

uint64_t FsyncPolicy::Fsync(EngineStats& stats) {
  const int fd = fd_;
  return Sync(stats, "fsync", [fd] { return ::fsync(fd); });
}

uint64_t FsyncPolicy::Sync(EngineStats& stats, const char* name, const std::function<int()>& sync) {
  since_last_ = 0;
  const uint64_t t0 = MonotonicNs();
  int ret;
  do {
    ret = sync();
  } while (ret != 0 && errno == EINTR);
  const int err = ret == 0 ? 0 : errno;
  const uint64_t t1 = MonotonicNs();
  if (ret == 0) {
    ++stats.fsyncs;
    stats.fsync_latency.Record(t1 - t0);
    if (stats.fsync_end_ns.size() < EngineStats::kFsyncLog) {
      stats.fsync_end_ns.push_back(t1);
      stats.fsync_latency_us.push_back(double(t1 - t0) / 1e3);
    } else if (stats.fsync_end_ns.size() == EngineStats::kFsyncLog &&
               stats.fsyncs == EngineStats::kFsyncLog + 1) {
      stats.warnings.push_back("fsync latency timeline holds the first " +
                               std::to_string(EngineStats::kFsyncLog) + " fsyncs only");
    }
  } else if (err != last_errno_) {
    // EIO here means written data may be lost; EINVAL, that the target cannot sync.
    stats.warnings.push_back(target_ + ": " + name + " failed: " + std::strerror(err) +
                             " (not counted in fsyncs)");
    last_errno_ = err;
  }
  return t1;
}

void IoBudget::StartAt(uint64_t start_ns) {
  if (runtime_ns_) deadline_ns_ = start_ns + runtime_ns_;
}

namespace {

// What adds up the same whether parts ran side by side (threads) or one after another
// (passes): counts, histograms, the largest mmap window, warnings without repeats.
void AddCounts(EngineStats& out, const EngineStats& p) {
  out.ios += p.ios;
  out.bytes += p.bytes;
  out.reads += p.reads;
  out.writes += p.writes;
  out.fsyncs += p.fsyncs;
  out.verified_bytes += p.verified_bytes;
  out.mmap_calls += p.mmap_calls;
  out.munmap_calls += p.munmap_calls;
  out.mmap_window_bytes = std::max(out.mmap_window_bytes, p.mmap_window_bytes);
  out.latency.Merge(p.latency);
  out.fsync_latency.Merge(p.fsync_latency);
  for (const std::string& w : p.warnings)
    if (std::find(out.warnings.begin(), out.warnings.end(), w) == out.warnings.end())
      out.warnings.push_back(w);
}

// Engines report only batch averages; every completed IO was submitted and reaped once,
// so ios / average recovers the number of calls.
double CallsOf(uint64_t ios, double avg_batch) {
  return avg_batch > 0 ? double(ios) / avg_batch : 0.0;
}

}  // namespace

EngineStats MergeEngineStats(const std::vector<EngineStats>& parts) {
  EngineStats out;
  long double depth_ns = 0;  // sum of each part's in-flight integral, request-ns
  double submit_calls = 0, reap_rounds = 0;
  std::vector<std::pair<uint64_t, double>> fsync_log;
  for (const EngineStats& p : parts) {
    AddCounts(out, p);
    // An upper bound: the threads' peaks need not coincide.
    out.max_in_flight += p.max_in_flight;
    if (p.start_ns != 0) {
      out.start_ns = out.start_ns == 0 ? p.start_ns : std::min(out.start_ns, p.start_ns);
      out.end_ns = std::max(out.end_ns, p.end_ns);
      depth_ns += (long double)(p.avg_depth) * (p.end_ns - p.start_ns);
    }
    submit_calls += CallsOf(p.ios, p.avg_submit_batch);
    reap_rounds += CallsOf(p.ios, p.avg_complete_batch);
    for (size_t i = 0; i < p.fsync_end_ns.size() && i < p.fsync_latency_us.size(); ++i)
      fsync_log.emplace_back(p.fsync_end_ns[i], p.fsync_latency_us[i]);
  }
  if (out.end_ns > out.start_ns) {
    out.runtime_s = double(out.end_ns - out.start_ns) / 1e9;
    out.avg_depth = double(depth_ns / (out.end_ns - out.start_ns));
  }
  if (submit_calls > 0) out.avg_submit_batch = double(out.ios) / submit_calls;
  if (reap_rounds > 0) out.avg_complete_batch = double(out.ios) / reap_rounds;
  std::sort(fsync_log.begin(), fsync_log.end());
  if (fsync_log.size() > EngineStats::kFsyncLog) fsync_log.resize(EngineStats::kFsyncLog);
  for (const auto& [end_ns, latency_us] : fsync_log) {
    out.fsync_end_ns.push_back(end_ns);
    out.fsync_latency_us.push_back(latency_us);
  }
  return out;
}

void AppendPassStats(EngineStats& total, EngineStats pass) {
  if (total.start_ns == 0) {
    total = std::move(pass);
    return;
  }
  const double before_s = total.runtime_s;
  const double both_s = before_s + pass.runtime_s;
  if (both_s > 0) {
    total.avg_depth = (total.avg_depth * before_s + pass.avg_depth * pass.runtime_s) / both_s;
  }
  const double submits =
      CallsOf(total.ios, total.avg_submit_batch) + CallsOf(pass.ios, pass.avg_submit_batch);
  const double reaps =
      CallsOf(total.ios, total.avg_complete_batch) + CallsOf(pass.ios, pass.avg_complete_batch);
  AddCounts(total, pass);
  total.max_in_flight = std::max(total.max_in_flight, pass.max_in_flight);
  total.runtime_s = both_s;
  if (pass.start_ns != 0) total.end_ns = pass.end_ns;
  if (submits > 0) total.avg_submit_batch = double(total.ios) / submits;
  if (reaps > 0) total.avg_complete_batch = double(total.ios) / reaps;
  if (total.time_at_depth_ns.size() < pass.time_at_depth_ns.size())
    total.time_at_depth_ns.resize(pass.time_at_depth_ns.size(), 0.0);
  for (size_t i = 0; i < pass.time_at_depth_ns.size(); ++i)
    total.time_at_depth_ns[i] += pass.time_at_depth_ns[i];
  for (size_t i = 0; i < pass.fsync_end_ns.size() && i < pass.fsync_latency_us.size() &&
                     total.fsync_end_ns.size() < EngineStats::kFsyncLog;
       ++i) {
    total.fsync_end_ns.push_back(pass.fsync_end_ns[i]);
    total.fsync_latency_us.push_back(pass.fsync_latency_us[i]);
  }
}

namespace {

// A function-local static: registrars in other files run during static initialisation,
// in an order the language leaves open.
std::map<Engine, EngineFactory>& Factories() {
  static std::map<Engine, EngineFactory> factories;
  return factories;
}

}  // namespace

EngineRegistrar::EngineRegistrar(Engine e, EngineFactory make) {
  const bool added = Factories().emplace(e, make).second;
  assert(added && "two engine files register the same engine");
  (void)added;
}

bool EngineBuiltIn(Engine e) { return Factories().count(e) > 0; }

std::unique_ptr<IoEngine> MakeEngine(Engine e) {
  const auto it = Factories().find(e);
  if (it != Factories().end()) return it->second();
  throw std::invalid_argument("engine " + ToString(e) + " is not built into this agent");
}

DirectionChooser::DirectionChooser(const EngineJob& job)
    // Keyed apart from the random pattern, which draws from the same seed.
    : rw_(job.rw), read_pct_(job.read_pct), draws_(job.seed ^ 0x6d697865645f7277ull) {}

bool DirectionChooser::NextIsWrite() {
  switch (rw_) {
    case Direction::Read:
      return false;
    case Direction::Write:
      return true;
    case Direction::Mixed:
      // 2^64 is not a multiple of 100; the bias is below 1e-17.
      return draws_.Next() % 100 >= read_pct_;
  }
  return false;
}

void CountCompletion(const EngineJob& job, bool write, const uint8_t* data, uint64_t offset,
                     const IoTimes& times, EngineStats& stats) {
  if (!write && job.verify) {
    if (auto bad = FindStampMismatch(data, job.bs, offset, job.seed))
      throw JobError("verify failed on " + job.target + ": block at offset " +
                     std::to_string(offset) + ": " + bad->Describe(job.seed));
    stats.verified_bytes += job.bs;
  }
  stats.latency.Record(times.seen_ns - times.submit_ns);
  if (job.io_log)
    job.io_log->Add({offset, uint32_t(job.bs), write, times.queued_ns, times.submit_ns,
                     times.seen_ns});
  ++stats.ios;
  stats.bytes += job.bs;
  ++(write ? stats.writes : stats.reads);
}

bool OpenedDirect(int fd) {
  const int flags = fcntl(fd, F_GETFL);
  return flags >= 0 && (flags & O_DIRECT) != 0;
}

std::span<uint8_t* const> TakeBuffers(const EngineJob& job, IoBuffers& own, size_t count) {
  return (job.buffers ? *job.buffers : own).Take(count, job.bs, job.huge_buffers);
}

uint64_t MonotonicNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return uint64_t(ts.tv_sec) * 1000000000ull + uint64_t(ts.tv_nsec);
}

void WarnSynchronous(const EngineJob& job, const std::string& engine, EngineStats& stats) {
  if (job.iodepth > 1)
    stats.warnings.push_back(engine + " is synchronous: iodepth " + std::to_string(job.iodepth) +
                             " ran at 1");
  if (job.reap == Reap::Poll)
    stats.warnings.push_back(engine + " is synchronous: reap poll does not apply");
  if (job.submit_batch > 1)
    stats.warnings.push_back(engine + " is synchronous: submit_batch " +
                             std::to_string(job.submit_batch) + " does not apply");
}

JobError IoError(const std::string& target, const std::string& syscall, uint64_t offset, int err) {
  return JobError(target + ": " + syscall + " at offset " + std::to_string(offset) +
                  " failed: " + std::strerror(err));
}

JobError ShortIoError(const std::string& target, const std::string& syscall, uint64_t offset,
                      uint64_t done, uint64_t bs) {
  return JobError(target + ": " + syscall + " at offset " + std::to_string(offset) +
                  " transferred " + std::to_string(done) + " of " + std::to_string(bs) +
                  " bytes (past the end of the target?)");
}

void EndPhase(const InFlightIntegral& in_flight, uint64_t now, EngineStats& stats) {
  if (stats.start_ns == 0) stats.start_ns = now;
  stats.end_ns = now;
  stats.runtime_s = double(stats.end_ns - stats.start_ns) / 1e9;
  stats.avg_depth = in_flight.Average(stats.start_ns, stats.end_ns);
  stats.time_at_depth_ns = in_flight.TimeAtCount(stats.end_ns);
}

void FinishAsyncStats(FsyncPolicy& fsync, const InFlightIntegral& in_flight,
                      const BatchCounts& batches, uint64_t now, EngineStats& stats) {
  if (fsync.EndDue()) now = fsync.Fsync(stats);
  EndPhase(in_flight, now, stats);
  if (batches.submit_calls)
    stats.avg_submit_batch = double(batches.submitted) / double(batches.submit_calls);
  if (batches.reap_rounds)
    stats.avg_complete_batch = double(batches.reaped) / double(batches.reap_rounds);
}

}  // namespace storbed
