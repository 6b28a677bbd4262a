// io_uring: keeps iodepth requests in flight on one ring, submitting refills two SQEs per
// call (the loop is engine_async.cc's; this file is the ring).
#include <liburing.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "engine_async.h"

namespace storbed {
namespace {

// Waits (up to a few seconds) for requests still in the kernel before the ring goes:
// their buffers are about to be freed, and ring teardown does not wait for them.
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

// The ring's setup flags to try, best first. As fio's io_uring engine sets them (3.33):
// completions' task work runs when the thread asks for events, never by interrupting it
// (COOP_TASKRUN; DEFER_TASKRUN, which needs SINGLE_ISSUER: only the thread that made the
// ring submits, as here). A kernel before 6.1 refuses DEFER_TASKRUN, one before 5.19
// COOP_TASKRUN, with EINVAL: the next set is tried. `reap: poll` spins on the completion
// ring without entering the kernel, so it would wait for deferred completions (or for a
// timer tick without the interrupt): it keeps the plain ring.
std::vector<unsigned> RingFlagsToTry(Reap reap) {
  if (reap == Reap::Poll) return {0};
  return {IORING_SETUP_COOP_TASKRUN | IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN,
          IORING_SETUP_COOP_TASKRUN, 0};
}

// SQEs per io_uring_enter unless the job sets submit_batch: two, O_DIRECT or buffered. A
// call of more starts a block plug, and every bio of the call waits in it until the last
// SQE is prepared: the device gets the refill as one burst after the whole batch's
// preparation. Buffered reads do their page-cache work (allocating and inserting folios)
// inside the call: 64k reads at depth 16 took ~1050 us against fio's ~820 in batches of
// 8-16. O_DIRECT 16k at depth 16 lost 10-20% of fio's IOPS in whole-refill batches and
// none in pairs. fio submits one per call; two start no plug and halve the calls
// (docs/bench-notes.md "The agent's IO path").
constexpr size_t kDefaultSqesPerCall = 2;

// Owns an initialised ring; drains it and io_uring_queue_exit on every path out.
class UringBackend : public AsyncBackend {
 public:
  UringBackend(unsigned entries, const EngineJob& job)
      : job_(job), per_call_(job.submit_batch ? job.submit_batch : kDefaultSqesPerCall) {
    int ret = -EINVAL;
    for (unsigned flags : RingFlagsToTry(job.reap)) {
      ret = io_uring_queue_init(entries, &ring_, flags);
      if (ret != -EINVAL) break;
    }
    if (ret < 0)
      throw JobError(job.target + ": io_uring_queue_init(" + std::to_string(entries) +
                     " entries) failed: " + std::strerror(-ret) +
                     " (kernel without io_uring, or kernel.io_uring_disabled set?)");
  }
  UringBackend(const UringBackend&) = delete;
  UringBackend& operator=(const UringBackend&) = delete;
  ~UringBackend() override {
    DrainRing(&ring_, outstanding_);
    io_uring_queue_exit(&ring_);
  }

  void Prep(unsigned, AsyncSlot&) override {}  // Submit preps each call's SQEs just before it

  size_t per_call() const override { return per_call_; }

  void Submit(std::span<const unsigned> queued, std::span<AsyncSlot> slots, bool wait_for_one,
              BatchCounts& batches) override {
    // One call: the loop hands over at most per_call() slots, and the ring has room for
    // all of them (entries == depth).
    const uint64_t now = MonotonicNs();
    for (unsigned s : queued) {
      PrepSqe(s, slots[s]);
      slots[s].submit_ns = now;
    }
    SubmitPrepared(wait_for_one ? 1 : 0, slots[queued.front()].offset, batches);
  }

  AsyncCompletion ReapFirst(Reap reap) override {
    io_uring_cqe* cqe = nullptr;
    int ret;
    if (reap == Reap::Poll) {
      // The completion ring is shared memory: spin on it and never sleep. Completions
      // are posted by task work, which runs when this thread is interrupted.
      while ((ret = io_uring_peek_cqe(&ring_, &cqe)) == -EAGAIN) CpuRelax();
    } else {
      do {
        ret = io_uring_wait_cqe(&ring_, &cqe);  // no syscall when one is ready
      } while (ret == -EINTR);
    }
    if (ret < 0) throw IoError(job_.target, "io_uring_wait_cqe", 0, -ret);
    return Take(cqe);
  }

  bool ReapMore(AsyncCompletion& c) override {
    io_uring_cqe* cqe = nullptr;
    if (io_uring_peek_cqe(&ring_, &cqe) != 0 || !cqe) return false;
    c = Take(cqe);
    return true;
  }

  const char* name() const override { return "io_uring"; }

 private:
  AsyncCompletion Take(io_uring_cqe* cqe) {
    const AsyncCompletion c{.slot = unsigned(io_uring_cqe_get_data64(cqe)), .res = cqe->res};
    io_uring_cqe_seen(&ring_, cqe);
    --outstanding_;
    return c;
  }

  void PrepSqe(unsigned s, AsyncSlot& slot) {
    io_uring_sqe* sqe = io_uring_get_sqe(&ring_);
    // Cannot happen with entries == depth, but never overrun.
    if (!sqe) throw JobError(job_.target + ": io_uring submission queue full");
    if (slot.write)
      io_uring_prep_write(sqe, job_.fd, slot.buf, unsigned(job_.bs), slot.offset);
    else
      io_uring_prep_read(sqe, job_.fd, slot.buf, unsigned(job_.bs), slot.offset);
    io_uring_sqe_set_data64(sqe, s);
  }

  // Submits every prepared SQE, waiting for `wait_for` completions in the same call. The
  // kernel reports -EINTR only when it consumed no SQE, so a retry resubmits the same ones.
  void SubmitPrepared(unsigned wait_for, uint64_t first_offset, BatchCounts& batches) {
    int ret;
    do {
      ret = io_uring_submit_and_wait(&ring_, wait_for);
    } while (ret == -EINTR);
    if (ret < 0) throw IoError(job_.target, "io_uring_submit", first_offset, -ret);
    ++batches.submit_calls;
    batches.submitted += unsigned(ret);
    outstanding_ += unsigned(ret);
  }

  const EngineJob& job_;
  size_t per_call_;  // SQEs per io_uring_enter
  io_uring ring_;
  unsigned outstanding_ = 0;  // submitted and not yet seen, for DrainRing
};

class UringEngine : public IoEngine {
 public:
  EngineStats Run(const EngineJob& job, OffsetGenerator& offsets) override {
    return RunAsyncEngine(job, offsets, [&job](unsigned depth) {
      return std::make_unique<UringBackend>(depth, job);
    });
  }
};

const EngineRegistrar kIoUringRegistered(Engine::IoUring, []() -> std::unique_ptr<IoEngine> {
  return std::make_unique<UringEngine>();
});

}  // namespace

}  // namespace storbed
