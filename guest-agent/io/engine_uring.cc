// io_uring: keeps iodepth requests in flight on one ring, submitting refills in batches
// (the loop is engine_async.cc's; this file is the ring).
#include <liburing.h>

#include <cerrno>
#include <cstring>

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

// Owns an initialised ring; drains it and io_uring_queue_exit on every path out.
class UringBackend : public AsyncBackend {
 public:
  UringBackend(unsigned entries, const EngineJob& job) : job_(job) {
    const int ret = io_uring_queue_init(entries, &ring_, 0);
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

  void Prep(unsigned s, AsyncSlot& slot) override {
    io_uring_sqe* sqe = io_uring_get_sqe(&ring_);
    // Cannot happen with entries == depth, but never overrun.
    if (!sqe) throw JobError(job_.target + ": io_uring submission queue full");
    if (slot.write)
      io_uring_prep_write(sqe, job_.fd, slot.buf.data(), unsigned(job_.bs), slot.offset);
    else
      io_uring_prep_read(sqe, job_.fd, slot.buf.data(), unsigned(job_.bs), slot.offset);
    io_uring_sqe_set_data64(sqe, s);
  }

  void Submit(std::span<const unsigned> queued, std::span<const AsyncSlot> slots, Reap reap,
              BatchCounts& batches) override {
    // Submit and (reap wait) wait for one completion in the same syscall. The kernel
    // reports -EINTR only when it consumed no SQE, so a retry resubmits the same batch.
    const unsigned wait_for = reap == Reap::Wait ? 1 : 0;
    int ret;
    do {
      ret = io_uring_submit_and_wait(&ring_, wait_for);
    } while (ret == -EINTR);
    if (ret < 0) throw IoError(job_.target, "io_uring_submit", slots[queued[0]].offset, -ret);
    ++batches.submit_calls;
    batches.submitted += unsigned(ret);
    outstanding_ += unsigned(ret);
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

  const EngineJob& job_;
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

const EngineRegistrar kRegistered(Engine::IoUring, []() -> std::unique_ptr<IoEngine> {
  return std::make_unique<UringEngine>();
});

}  // namespace

}  // namespace storbed
