// psync: one pread/pwrite at a time, the baseline every other engine is compared with.
// The loop is RunSyncEngine, shared with the other synchronous engines (pvsync2).
#include <errno.h>
#include <unistd.h>

#include "engine.h"
#include "io_buffer.h"

namespace storbed {

EngineStats RunSyncEngine(const EngineJob& job, OffsetGenerator& offsets, const SyncIo& io) {
  EngineStats stats;
  WarnSynchronous(job, io.engine, stats);
  DirectionChooser direction(job);
  IoBuffers own;
  uint8_t* const buf = TakeBuffers(job, own, 1)[0];
  StampedBody body;
  FsyncPolicy fsync(job);
  InFlightIntegral in_flight_time;
  IoBudget budget(job, offsets.blocks_per_pass(), MonotonicNs());
  uint64_t now = MonotonicNs();
  while (budget.MayIssue(now)) {
    const uint64_t off = offsets.Next();
    const bool write = direction.NextIsWrite();
    const char* syscall = write ? io.write_call : io.read_call;
    if (write)
      StampWrite(buf, job.bs, off, job.seed, body);
    else
      body.Forget();  // the read's data lands in buf
    budget.Issued();
    stats.max_in_flight = 1;
    const uint64_t t0 = MonotonicNs();
    if (stats.start_ns == 0) budget.StartAt(stats.start_ns = t0);
    in_flight_time.Set(t0, 1);
    ssize_t n;
    do {
      n = io.transfer(job.fd, buf, job.bs, off_t(off), write, io.flags);
    } while (n < 0 && errno == EINTR);  // the agent as PID 1 gets SIGCHLD and friends
    now = MonotonicNs();
    in_flight_time.Set(now, 0);
    if (n < 0) throw IoError(job.target, syscall, off, errno);
    if (uint64_t(n) != job.bs) throw ShortIoError(job.target, syscall, off, uint64_t(n), job.bs);
    CountCompletion(job, write, buf, off, {t0, t0, now}, stats);
    if (write) fsync.Wrote();
    if (fsync.Due()) now = fsync.Fsync(stats);
  }
  if (fsync.EndDue()) now = fsync.Fsync(stats);
  EndPhase(in_flight_time, now, stats);
  return stats;
}

namespace {

ssize_t PreadPwrite(int fd, void* buf, size_t len, off_t off, bool write, int) {
  return write ? pwrite(fd, buf, len, off) : pread(fd, buf, len, off);
}

class PsyncEngine : public IoEngine {
 public:
  EngineStats Run(const EngineJob& job, OffsetGenerator& offsets) override {
    return RunSyncEngine(
        job, offsets,
        {.engine = "psync", .read_call = "pread", .write_call = "pwrite", .transfer = PreadPwrite});
  }
};

const EngineRegistrar kPsyncRegistered(Engine::Psync, []() -> std::unique_ptr<IoEngine> {
  return std::make_unique<PsyncEngine>();
});

}  // namespace

}  // namespace storbed
