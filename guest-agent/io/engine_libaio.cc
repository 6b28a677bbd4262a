// libaio: Linux native AIO (io_setup, io_submit, io_getevents), keeping iodepth iocbs
// in flight and refilling every free slot, as one io_submit, after each reap.
#include <libaio.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "engine.h"
#include "io_buffer.h"

namespace storbed {
namespace {

// Owns an AIO context; io_destroy on every path out. io_destroy waits for the IOs
// still in flight, so it must run before their buffers are freed.
class AioContext {
 public:
  AioContext(unsigned entries, const std::string& target) {
    const int ret = io_setup(int(entries), &ctx_);
    if (ret < 0)
      throw JobError(target + ": io_setup(" + std::to_string(entries) +
                     " events) failed: " + std::strerror(-ret) + " (fs.aio-max-nr used up?)");
  }
  AioContext(const AioContext&) = delete;
  AioContext& operator=(const AioContext&) = delete;
  ~AioContext() { io_destroy(ctx_); }
  io_context_t get() { return ctx_; }

 private:
  io_context_t ctx_ = nullptr;
};

struct Slot {
  AlignedBuffer buf;
  iocb cb{};
  uint64_t offset = 0;
  uint64_t submit_ns = 0;
  bool write = false;
};

class LibaioEngine : public IoEngine {
 public:
  EngineStats Run(const EngineJob& job, OffsetGenerator& offsets) override {
    EngineStats stats;
    const unsigned depth = job.iodepth ? job.iodepth : 1;
    // Buffered AIO: io_submit does the copy (and any read from disk) before it
    // returns, so at most one IO is ever really in flight.
    if (!OpenedDirect(job.fd))
      stats.warnings.push_back("libaio without direct IO is synchronous in Linux: iodepth " +
                               std::to_string(depth) + " does not build up in the device");
    DirectionChooser direction(job);
    std::vector<Slot> slots(depth);  // declared before ctx: destroyed after io_destroy
    std::vector<unsigned> free_slots;
    for (unsigned i = 0; i < depth; ++i) {
      slots[i].buf = AlignedBuffer(job.bs);
      free_slots.push_back(depth - 1 - i);
    }
    AioContext ctx(depth, job.target);
    std::vector<io_event> events(depth);

    FsyncPolicy fsync(job);
    InFlightIntegral in_flight_time;
    IoBudget budget(job, offsets.blocks_per_pass(), MonotonicNs());
    uint64_t now = MonotonicNs();
    unsigned in_flight = 0;
    BatchCounts batches;
    std::vector<iocb*> queued;
    while (true) {
      queued.clear();
      while (!free_slots.empty() && !fsync.Due() && budget.MayIssue(now)) {
        const unsigned s = free_slots.back();
        free_slots.pop_back();
        Slot& slot = slots[s];
        slot.offset = offsets.Next();
        slot.write = direction.NextIsWrite();
        if (slot.write) {
          StampSectors(slot.buf.data(), job.bs, slot.offset, job.seed);
          io_prep_pwrite(&slot.cb, job.fd, slot.buf.data(), job.bs, (long long)slot.offset);
          fsync.Wrote();
        } else {
          io_prep_pread(&slot.cb, job.fd, slot.buf.data(), job.bs, (long long)slot.offset);
        }
        slot.cb.data = &slot;
        budget.Issued();
        queued.push_back(&slot.cb);
      }
      if (!queued.empty()) {
        const uint64_t t = MonotonicNs();
        if (stats.start_ns == 0) budget.StartAt(stats.start_ns = t);
        for (iocb* cb : queued) static_cast<Slot*>(cb->data)->submit_ns = t;
        in_flight += unsigned(queued.size());
        in_flight_time.Set(t, in_flight);
        if (in_flight > stats.max_in_flight) stats.max_in_flight = in_flight;
        // io_submit may take fewer than asked; the rest go in the next call.
        size_t done = 0;
        while (done < queued.size()) {
          const int ret = io_submit(ctx.get(), long(queued.size() - done), queued.data() + done);
          if (ret == -EINTR) continue;
          if (ret < 0) {
            const Slot& first = *static_cast<Slot*>(queued[done]->data);
            throw IoError(job.target,
                          first.write ? "io_submit of libaio write" : "io_submit of libaio read",
                          first.offset, -ret);
          }
          done += size_t(ret);
          ++batches.submit_calls;
          batches.submitted += unsigned(ret);
        }
      } else if (in_flight == 0) {
        // Drained: a due fsync runs with no write in flight, so it covers all of them.
        if (fsync.Due()) {
          now = fsync.Fsync(stats);
          continue;
        }
        break;
      }

      // reap poll: ask for what is there without waiting, again until something is.
      timespec no_wait{0, 0};
      const long min_events = job.reap == Reap::Wait ? 1 : 0;
      timespec* timeout = job.reap == Reap::Wait ? nullptr : &no_wait;
      int ret;
      do {
        ret = io_getevents(ctx.get(), min_events, long(events.size()), events.data(), timeout);
        if (ret == 0) CpuRelax();
      } while (ret == -EINTR || ret == 0);
      if (ret < 0) throw IoError(job.target, "io_getevents", 0, -ret);
      // Every completion seen on this wake-up finished by now.
      now = MonotonicNs();
      for (int i = 0; i < ret; ++i) {
        Slot& slot = *static_cast<Slot*>(events[size_t(i)].data);
        // res is the byte count, or -errno stored in an unsigned long.
        const long res = long(events[size_t(i)].res);
        const char* syscall = slot.write ? "libaio write" : "libaio read";
        if (res < 0) throw IoError(job.target, syscall, slot.offset, int(-res));
        if (uint64_t(res) != job.bs)
          throw ShortIoError(job.target, syscall, slot.offset, uint64_t(res), job.bs);
        CountCompletion(job, slot.write, slot.buf.data(), slot.offset, now - slot.submit_ns, stats);
        free_slots.push_back(unsigned(&slot - slots.data()));
      }
      in_flight -= unsigned(ret);
      in_flight_time.Set(now, in_flight);
      ++batches.reap_rounds;
      batches.reaped += unsigned(ret);
    }
    FinishAsyncStats(fsync, in_flight_time, batches, now, stats);
    return stats;
  }
};

const EngineRegistrar kRegistered(Engine::Libaio, []() -> std::unique_ptr<IoEngine> {
  return std::make_unique<LibaioEngine>();
});

}  // namespace

}  // namespace storbed
