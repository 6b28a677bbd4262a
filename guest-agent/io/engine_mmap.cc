// mmap: IO as memory copies to and from a shared mapping of the target, so it goes
// through the page cache and page faults, never O_DIRECT. A window of the region is
// mapped at a time and replaced when an IO falls outside it.
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include "engine.h"
#include "io_buffer.h"
#include "target_device.h"

namespace storbed {
namespace {

int Advice(AccessHint h) {
  switch (h) {
    case AccessHint::None:
      return MADV_NORMAL;
    case AccessHint::Sequential:
      return MADV_SEQUENTIAL;
    case AccessHint::Random:
      return MADV_RANDOM;
    case AccessHint::WillNeed:
      return MADV_WILLNEED;
  }
  return MADV_NORMAL;
}

uint64_t RoundUp(uint64_t v, uint64_t to) { return (v + to - 1) / to * to; }

// One mapped window [start, start + len) of the target; munmap on every path out.
class Window {
 public:
  Window() = default;
  Window(const Window&) = delete;
  Window& operator=(const Window&) = delete;
  ~Window() {
    if (addr_) munmap(addr_, len_);
  }
  bool Holds(uint64_t off, uint64_t bs) const {
    return addr_ && off >= start_ && off + bs <= start_ + len_;
  }
  uint8_t* At(uint64_t off) const { return addr_ + (off - start_); }
  // Unmaps the current window (if any) and maps [start, start + len). Throws JobError.
  void Map(const EngineJob& job, int prot, uint64_t start, uint64_t len, EngineStats& stats) {
    Unmap(job, stats);
    void* p = mmap(nullptr, len, prot, MAP_SHARED, job.fd, off_t(start));
    if (p == MAP_FAILED) throw IoError(job.target, "mmap", start, errno);
    addr_ = static_cast<uint8_t*>(p);
    start_ = start;
    len_ = len;
    ++stats.mmap_calls;
    if (madvise(addr_, len_, Advice(job.madvise)) != 0 && !madvise_warned_) {
      stats.warnings.push_back(job.target + ": madvise(" + ToString(job.madvise) +
                               ") failed: " + std::strerror(errno));
      madvise_warned_ = true;
    }
  }
  void Unmap(const EngineJob& job, EngineStats& stats) {
    if (!addr_) return;
    if (munmap(addr_, len_) != 0) throw IoError(job.target, "munmap", start_, errno);
    addr_ = nullptr;
    ++stats.munmap_calls;
  }
  int Msync() const { return msync(addr_, len_, MS_SYNC); }

 private:
  uint8_t* addr_ = nullptr;
  uint64_t start_ = 0;
  uint64_t len_ = 0;
  bool madvise_warned_ = false;
};

// Where a job's windows lie in its target.
struct MapLayout {
  uint64_t target_size;  // after growing a file for writes
  uint64_t page;
  uint64_t base;    // the region's start, down to a page
  uint64_t window;  // mmap_window (or the whole region) up to a page
  int prot;
  // The window [start, start + len) that holds [off, off + bs): the window-sized slot of the
  // region that off falls in, or one from off's page before the region; no page past the
  // target's last.
  std::pair<uint64_t, uint64_t> WindowFor(uint64_t off, uint64_t bs) const {
    const uint64_t start = off >= base ? base + (off - base) / window * window : off / page * page;
    const uint64_t len = std::max(window, RoundUp(off + bs - start, page));
    return {start, std::min(len, RoundUp(target_size, page) - start)};
  }
};

// The layout of `job`'s windows; a regular file shorter than a write job's region is grown
// to it first. Throws IoError.
MapLayout LayOut(const EngineJob& job) {
  const uint64_t page = uint64_t(sysconf(_SC_PAGESIZE));
  const bool writes = job.rw != Direction::Read;
  uint64_t target_size = TargetSize(job.fd, job.target);
  const uint64_t region_begin = job.region_size ? job.region_offset : 0;
  const uint64_t region_end = job.region_size ? job.region_offset + job.region_size : target_size;
  // A store past the end of a file raises SIGBUS instead of growing it: grow it first,
  // as pwrite would.
  struct stat st;
  if (writes && target_size < region_end && fstat(job.fd, &st) == 0 && S_ISREG(st.st_mode)) {
    if (ftruncate(job.fd, off_t(region_end)) != 0)
      throw IoError(job.target, "ftruncate", region_end, errno);
    target_size = region_end;
  }
  const uint64_t base = region_begin / page * page;
  return {.target_size = target_size,
          .page = page,
          .base = base,
          .window = RoundUp(job.mmap_window ? job.mmap_window : region_end - base, page),
          .prot = writes ? PROT_READ | PROT_WRITE : PROT_READ};
}

class MmapEngine : public IoEngine {
 public:
  EngineStats Run(const EngineJob& job, OffsetGenerator& offsets) override {
    EngineStats stats;
    WarnSynchronous(job, "mmap", stats);
    if (OpenedDirect(job.fd))
      stats.warnings.push_back("mmap goes through the page cache: direct IO does not apply");
    const MapLayout layout = LayOut(job);
    const uint64_t target_size = layout.target_size;
    stats.mmap_window_bytes = layout.window;

    DirectionChooser direction(job);
    IoBuffers own;
    uint8_t* const buf = TakeBuffers(job, own, 1)[0];
    StampedBody body;
    FsyncPolicy fsync(job);
    InFlightIntegral in_flight_time;
    Window map;
    // msync covers the current window only; writes left dirty in windows unmapped
    // since the last sync are still in the page cache, and fsync reaches them too.
    bool dirty_elsewhere = false, dirty_here = false;
    auto sync = [&] {
      const bool whole_file = dirty_elsewhere;
      dirty_elsewhere = dirty_here = false;
      if (whole_file) return fsync.Fsync(stats);
      return fsync.Sync(stats, "msync", [&map] { return map.Msync(); });
    };
    IoBudget budget(job, offsets.blocks_per_pass(), MonotonicNs());
    uint64_t now = MonotonicNs();
    while (budget.MayIssue(now)) {
      const uint64_t off = offsets.Next();
      const bool write = direction.NextIsWrite();
      const char* what = write ? "mmap write" : "mmap read";
      budget.Issued();
      if (stats.start_ns == 0) budget.StartAt(stats.start_ns = MonotonicNs());
      // Touching a page past the end of the target raises SIGBUS: fail like a short pread.
      if (off + job.bs > target_size)
        throw ShortIoError(job.target, what, off, off < target_size ? target_size - off : 0,
                           job.bs);
      if (!map.Holds(off, job.bs)) {
        const auto [start, len] = layout.WindowFor(off, job.bs);
        dirty_elsewhere = dirty_elsewhere || dirty_here;
        dirty_here = false;
        map.Map(job, layout.prot, start, len, stats);
      }
      stats.max_in_flight = 1;
      const uint64_t t0 = MonotonicNs();
      in_flight_time.Set(t0, 1);
      // A read copies every byte out, so each page of the block is faulted in.
      if (write) {
        StampWrite(buf, job.bs, off, job.seed, body);
        std::memcpy(map.At(off), buf, job.bs);
      } else {
        std::memcpy(buf, map.At(off), job.bs);
        body.Forget();
      }
      now = MonotonicNs();
      in_flight_time.Set(now, 0);
      CountCompletion(job, write, buf, off, {t0, t0, now}, stats);
      if (write) {
        fsync.Wrote();
        dirty_here = true;
      }
      if (fsync.Due()) now = sync();
    }
    if (fsync.EndDue()) now = sync();
    EndPhase(in_flight_time, now, stats);
    map.Unmap(job, stats);
    return stats;
  }
};

const EngineRegistrar kMmapRegistered(Engine::Mmap, []() -> std::unique_ptr<IoEngine> {
  return std::make_unique<MmapEngine>();
});

}  // namespace

}  // namespace storbed
