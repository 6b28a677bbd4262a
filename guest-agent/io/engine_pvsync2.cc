// pvsync2: fio's pvsync2, one preadv2/pwritev2 with a single iovec at a time, with the
// per-IO flags fio sets from its options. RWF_HIPRI (fio hipri) has the kernel poll the
// device's poll queue for the completion instead of sleeping until its interrupt; on a
// device without poll queues the IO simply completes the normal way. RWF_NOWAIT (fio
// nowait) fails a call that would block (data not cached, a lock, writeback) with EAGAIN.
// The flags are engine variants (pvsync2_hipri, pvsync2_nowait): one row each.
#include <sys/uio.h>

#include <string>

#include "engine.h"

namespace storbed {
namespace {

ssize_t PreadvPwritev2(int fd, void* buf, size_t len, off_t off, bool write, int flags) {
  const iovec iov{.iov_base = buf, .iov_len = len};
  return write ? pwritev2(fd, &iov, 1, off, flags) : preadv2(fd, &iov, 1, off, flags);
}

// An EAGAIN under RWF_NOWAIT fails that IO and so the job, as fio does: its sync.c
// fio_io_end sets io_u->error, which ends a job that has no continue_on_error.
class Pvsync2Engine : public IoEngine {
 public:
  Pvsync2Engine(Engine e, int flags) : name_(ToString(e)), flags_(flags) {}
  EngineStats Run(const EngineJob& job, OffsetGenerator& offsets) override {
    return RunSyncEngine(job, offsets,
                         {.engine = name_.c_str(),
                          .read_call = "preadv2",
                          .write_call = "pwritev2",
                          .transfer = PreadvPwritev2,
                          .flags = flags_});
  }

 private:
  std::string name_;
  int flags_;
};

const EngineRegistrar kPlain(Engine::Pvsync2, []() -> std::unique_ptr<IoEngine> {
  return std::make_unique<Pvsync2Engine>(Engine::Pvsync2, 0);
});
const EngineRegistrar kHipri(Engine::Pvsync2Hipri, []() -> std::unique_ptr<IoEngine> {
  return std::make_unique<Pvsync2Engine>(Engine::Pvsync2Hipri, RWF_HIPRI);
});
const EngineRegistrar kNowait(Engine::Pvsync2Nowait, []() -> std::unique_ptr<IoEngine> {
  return std::make_unique<Pvsync2Engine>(Engine::Pvsync2Nowait, RWF_NOWAIT);
});

}  // namespace
}  // namespace storbed
