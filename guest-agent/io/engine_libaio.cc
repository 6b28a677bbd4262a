// libaio: Linux native AIO (io_setup, io_submit, io_getevents), keeping iodepth iocbs
// in flight and refilling every free slot, as one io_submit, after each reap (the loop
// is engine_async.cc's; this file is the AIO context).
#include <libaio.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include "engine_async.h"

namespace storbed {
namespace {

// Owns an AIO context; io_destroy on every path out. io_destroy waits for the IOs
// still in flight, so it runs before their buffers (the loop's slots) are freed.
class LibaioBackend : public AsyncBackend {
 public:
  LibaioBackend(unsigned entries, const EngineJob& job)
      : job_(job),
        per_call_(job.submit_batch ? job.submit_batch : (OpenedDirect(job.fd) ? 2 : 1)),
        cbs_(entries),
        events_(entries) {
    const int ret = io_setup(int(entries), &ctx_);
    if (ret < 0)
      throw JobError(job.target + ": io_setup(" + std::to_string(entries) +
                     " events) failed: " + std::strerror(-ret) + " (fs.aio-max-nr used up?)");
  }
  LibaioBackend(const LibaioBackend&) = delete;
  LibaioBackend& operator=(const LibaioBackend&) = delete;
  ~LibaioBackend() override { io_destroy(ctx_); }

  void Prep(unsigned s, AsyncSlot& slot) override {
    iocb& cb = cbs_[s];
    if (slot.write)
      io_prep_pwrite(&cb, job_.fd, slot.buf, job_.bs, (long long)slot.offset);
    else
      io_prep_pread(&cb, job_.fd, slot.buf, job_.bs, (long long)slot.offset);
  }

  size_t per_call() const override { return per_call_; }

  // io_submit never waits for a completion: ReapFirst does.
  void Submit(std::span<const unsigned> queued, std::span<AsyncSlot> slots, bool,
              BatchCounts& batches) override {
    batch_.clear();
    for (unsigned s : queued) batch_.push_back(&cbs_[s]);
    // io_submit may take fewer than asked; the rest go in the next call.
    size_t done = 0;
    while (done < batch_.size()) {
      const size_t ask = std::min(batch_.size() - done, size_t(per_call_));
      // Each IO's clock starts at the call that takes it, not at the batch's first.
      const uint64_t now = MonotonicNs();
      for (size_t k = done; k < done + ask; ++k) slots[queued[k]].submit_ns = now;
      const int ret = io_submit(ctx_, long(ask), batch_.data() + done);
      if (ret == -EINTR) continue;
      if (ret < 0) {
        const AsyncSlot& first = slots[queued[done]];
        throw IoError(job_.target,
                      first.write ? "io_submit of libaio write" : "io_submit of libaio read",
                      first.offset, -ret);
      }
      done += size_t(ret);
      ++batches.submit_calls;
      batches.submitted += unsigned(ret);
    }
  }

  AsyncCompletion ReapFirst(Reap reap) override {
    // reap poll: ask for what is there without waiting, again until something is.
    timespec no_wait{0, 0};
    const long min_events = reap == Reap::Wait ? 1 : 0;
    timespec* timeout = reap == Reap::Wait ? nullptr : &no_wait;
    int ret;
    do {
      ret = io_getevents(ctx_, min_events, long(events_.size()), events_.data(), timeout);
      if (ret == 0) CpuRelax();
    } while (ret == -EINTR || ret == 0);
    if (ret < 0) throw IoError(job_.target, "io_getevents", 0, -ret);
    got_ = size_t(ret);
    next_ = 0;
    AsyncCompletion c;
    ReapMore(c);
    return c;
  }

  bool ReapMore(AsyncCompletion& c) override {
    if (next_ >= got_) return false;
    const io_event& ev = events_[next_++];
    c.slot = unsigned(static_cast<iocb*>(ev.obj) - cbs_.data());
    // res is the byte count, or -errno stored in an unsigned long.
    c.res = int64_t(long(ev.res));
    return true;
  }

  const char* name() const override { return "libaio"; }

 private:
  const EngineJob& job_;
  // Buffered AIO does each IO inside io_submit, and io_submit holds a block plug over a
  // call of more than two IOs: a read that waits for its page sleeps with its own bio
  // still in the plug, flushed only through kblockd. One IO per call, as fio submits by
  // default (measured, 4k buffered QD4 random read: 420 IOPS batched, see
  // docs/bench-notes.md "The agent's IO path"). O_DIRECT goes two per call: a call of
  // more plugs its bios until the last is prepared, and the device gets each refill as
  // one late burst (16k at depth 16: 10-20% below fio's IOPS in whole-refill batches).
  // A job's submit_batch overrides both.
  unsigned per_call_;
  io_context_t ctx_ = nullptr;
  std::vector<iocb> cbs_;  // one per slot, same index
  std::vector<iocb*> batch_;
  std::vector<io_event> events_;
  size_t got_ = 0, next_ = 0;  // events_ of the current round, and the next to hand out
};

class LibaioEngine : public IoEngine {
 public:
  EngineStats Run(const EngineJob& job, OffsetGenerator& offsets) override {
    EngineStats stats = RunAsyncEngine(job, offsets, [&job](unsigned depth) {
      return std::make_unique<LibaioBackend>(depth, job);
    });
    // Buffered AIO: io_submit does the copy (and any read from disk) before it
    // returns, so at most one IO is ever really in flight.
    if (!OpenedDirect(job.fd))
      stats.warnings.insert(stats.warnings.begin(),
                            "libaio without direct IO is synchronous in Linux: iodepth " +
                                std::to_string(job.iodepth ? job.iodepth : 1) +
                                " does not build up in the device");
    return stats;
  }
};

const EngineRegistrar kLibaioRegistered(Engine::Libaio, []() -> std::unique_ptr<IoEngine> {
  return std::make_unique<LibaioEngine>();
});

}  // namespace

}  // namespace storbed
