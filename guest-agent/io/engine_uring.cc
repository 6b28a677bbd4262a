// io_uring: keeps iodepth requests in flight on one ring, submitting refills in batches.
#include <liburing.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "engine.h"
#include "io_buffer.h"

namespace storbed {
namespace {

// Owns an initialised ring; io_uring_queue_exit on every path out.
class Ring {
 public:
  Ring(unsigned entries, const std::string& target) {
    const int ret = io_uring_queue_init(entries, &ring_, 0);
    if (ret < 0)
      throw JobError(target + ": io_uring_queue_init(" + std::to_string(entries) +
                     " entries) failed: " + std::strerror(-ret) +
                     " (kernel without io_uring, or kernel.io_uring_disabled set?)");
  }
  Ring(const Ring&) = delete;
  Ring& operator=(const Ring&) = delete;
  ~Ring() { io_uring_queue_exit(&ring_); }
  io_uring* get() { return &ring_; }

 private:
  io_uring ring_;
};

struct Slot {
  AlignedBuffer buf;
  uint64_t offset = 0;
  uint64_t submit_ns = 0;
  bool write = false;
};

// Waits (up to a few seconds) for requests still in the kernel before an error leaves
// Run(): their buffers are about to be freed, and ring teardown does not wait for them.
void DrainRing(io_uring* ring, unsigned outstanding) {
  for (int waited_s = 0; outstanding > 0 && waited_s < 5;) {
    io_uring_cqe* cqe = nullptr;
    __kernel_timespec timeout{1, 0};
    const int ret = io_uring_wait_cqe_timeout(ring, &cqe, &timeout);
    if (ret == -ETIME) {
      ++waited_s;
      continue;
    }
    if (ret < 0 && ret != -EINTR) return;
    if (ret == 0 && cqe) {
      io_uring_cqe_seen(ring, cqe);
      --outstanding;
    }
  }
}

class UringEngine : public IoEngine {
 public:
  EngineStats Run(const EngineJob& job, OffsetGenerator& offsets) override {
    EngineStats stats;
    const unsigned depth = job.iodepth ? job.iodepth : 1;
    DirectionChooser direction(job);
    Ring ring(depth, job.target);
    std::vector<Slot> slots(depth);
    std::vector<unsigned> free_slots;
    for (unsigned i = 0; i < depth; ++i) {
      slots[i].buf = AlignedBuffer(job.bs);
      free_slots.push_back(depth - 1 - i);
    }

    FsyncPolicy fsync(job);
    InFlightIntegral in_flight_time;
    IoBudget budget(job, offsets.blocks_per_pass(), MonotonicNs());
    uint64_t now = MonotonicNs();
    unsigned in_flight = 0;
    BatchCounts batches;
    std::vector<unsigned> queued;
    unsigned outstanding = 0;  // submitted and not yet seen, for DrainRing
    try {
      while (true) {
        // Refill every free slot right after a reap, as one batch (one syscall).
        queued.clear();
        while (!free_slots.empty() && !fsync.Due() && budget.MayIssue(now)) {
          io_uring_sqe* sqe = io_uring_get_sqe(ring.get());
          if (!sqe) break;  // cannot happen with entries == depth, but never overrun
          const unsigned s = free_slots.back();
          free_slots.pop_back();
          Slot& slot = slots[s];
          slot.offset = offsets.Next();
          slot.write = direction.NextIsWrite();
          if (slot.write) {
            StampSectors(slot.buf.data(), job.bs, slot.offset, job.seed);
            io_uring_prep_write(sqe, job.fd, slot.buf.data(), unsigned(job.bs), slot.offset);
            fsync.Wrote();
          } else {
            io_uring_prep_read(sqe, job.fd, slot.buf.data(), unsigned(job.bs), slot.offset);
          }
          io_uring_sqe_set_data64(sqe, s);
          budget.Issued();
          queued.push_back(s);
        }
        if (!queued.empty()) {
          const uint64_t t = MonotonicNs();
          if (stats.start_ns == 0) budget.StartAt(stats.start_ns = t);
          for (unsigned s : queued) slots[s].submit_ns = t;
          in_flight += unsigned(queued.size());
          in_flight_time.Set(t, in_flight);
          if (in_flight > stats.max_in_flight) stats.max_in_flight = in_flight;
          // Submit and (reap wait) wait for one completion in the same syscall. The kernel
          // reports -EINTR only when it consumed no SQE, so a retry resubmits the same batch.
          const unsigned wait_for = job.reap == Reap::Wait ? 1 : 0;
          int ret;
          do {
            ret = io_uring_submit_and_wait(ring.get(), wait_for);
          } while (ret == -EINTR);
          if (ret < 0) throw IoError(job.target, "io_uring_submit", slots[queued[0]].offset, -ret);
          ++batches.submit_calls;
          batches.submitted += unsigned(ret);
          outstanding += unsigned(ret);
        } else if (in_flight == 0) {
          // Drained: a due fsync runs with no write in flight, so it covers all of them.
          if (fsync.Due()) {
            now = fsync.Fsync(stats);
            continue;
          }
          break;
        }

        io_uring_cqe* cqe = nullptr;
        int ret;
        if (job.reap == Reap::Poll) {
          // The completion ring is shared memory: spin on it and never sleep. Completions
          // are posted by task work, which runs when this thread is interrupted.
          while ((ret = io_uring_peek_cqe(ring.get(), &cqe)) == -EAGAIN) CpuRelax();
        } else {
          do {
            ret = io_uring_wait_cqe(ring.get(), &cqe);  // no syscall when one is ready
          } while (ret == -EINTR);
        }
        if (ret < 0) throw IoError(job.target, "io_uring_wait_cqe", 0, -ret);
        // Every completion seen on this wake-up finished by now.
        now = MonotonicNs();
        unsigned round = 0;
        do {
          const unsigned s = unsigned(io_uring_cqe_get_data64(cqe));
          const int res = cqe->res;
          io_uring_cqe_seen(ring.get(), cqe);
          --outstanding;
          ++round;
          const char* syscall = slots[s].write ? "io_uring write" : "io_uring read";
          if (res < 0) throw IoError(job.target, syscall, slots[s].offset, -res);
          if (uint64_t(res) != job.bs)
            throw ShortIoError(job.target, syscall, slots[s].offset, uint64_t(res), job.bs);
          CountCompletion(job, slots[s].write, slots[s].buf.data(), slots[s].offset,
                          now - slots[s].submit_ns, stats);
          free_slots.push_back(s);
        } while (io_uring_peek_cqe(ring.get(), &cqe) == 0 && cqe);
        in_flight -= round;
        in_flight_time.Set(now, in_flight);
        ++batches.reap_rounds;
        batches.reaped += round;
      }
    } catch (...) {
      DrainRing(ring.get(), outstanding);
      throw;
    }
    FinishAsyncStats(fsync, in_flight_time, batches, now, stats);
    return stats;
  }
};

const EngineRegistrar kRegistered(Engine::IoUring, []() -> std::unique_ptr<IoEngine> {
  return std::make_unique<UringEngine>();
});

}  // namespace

}  // namespace storbed
