#include "cache_control.h"

#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <vector>

#include "engine.h"
#include "job_runner.h"
#include "split_mix64.h"
#include "target_device.h"
#include "unique_fd.h"

namespace storbed {
namespace {

class RealSystem : public CacheSystem {
 public:
  void Sync() override { sync(); }
  std::optional<std::string> DropCaches(const std::string& value) override {
    UniqueFd fd(open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC));
    if (!fd.valid()) return std::string("open /proc/sys/vm/drop_caches: ") + std::strerror(errno);
    if (write(fd.get(), value.data(), value.size()) != ssize_t(value.size()))
      return std::string("write /proc/sys/vm/drop_caches: ") + std::strerror(errno);
    return std::nullopt;
  }
};

// Runs one step, timing it; `step` returns the error text or nullopt.
void Timed(CachePrepared& out, std::string name,
           const std::function<std::optional<std::string>()>& step) {
  const uint64_t t0 = MonotonicNs();
  std::optional<std::string> error = step();
  const double s = double(MonotonicNs() - t0) / 1e9;
  out.steps.push_back({std::move(name), s, error.value_or("")});
}

std::optional<std::string> Errno(const char* what) {
  return std::string(what) + ": " + std::strerror(errno);
}

uint64_t PageSize() { return uint64_t(sysconf(_SC_PAGESIZE)); }

// Buffered reads of [offset, offset + len) in pieces of at most buf.size() bytes; the
// errno text on failure. Short reads at the end of the target end the range.
std::optional<std::string> ReadRange(int fd, uint64_t offset, uint64_t len,
                                     std::vector<char>& buf) {
  for (uint64_t done = 0; done < len;) {
    const size_t want = size_t(std::min<uint64_t>(len - done, buf.size()));
    const ssize_t n = pread(fd, buf.data(), want, off_t(offset + done));
    if (n < 0) {
      if (errno == EINTR) continue;
      return "pread at " + std::to_string(offset + done) + ": " + std::strerror(errno);
    }
    if (n == 0) break;
    done += uint64_t(n);
  }
  return std::nullopt;
}

// Reads exactly `want` of the `units` units of `unit` bytes from `offset`, chosen by
// selection sampling (Knuth's algorithm S): constant memory, ascending order, so the
// device sees one forward sweep rather than a random walk.
std::optional<std::string> ReadChosenUnits(int fd, uint64_t offset, uint64_t unit, uint64_t units,
                                           uint64_t want, uint64_t seed) {
  // Without this, a buffered read of one unit starts readahead and caches its neighbours
  // too, and the measured fraction overshoots (a page that is cached also stops
  // readahead for a later sequential job, which is what a partial start is for). RANDOM
  // is per open file, so it only affects this fd.
  if (const int err = posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM); err != 0)
    return std::string("posix_fadvise(RANDOM): ") + std::strerror(err);
  std::vector<char> buf(size_t(std::min<uint64_t>(unit, 1 << 20)));
  SplitMix64 rng(seed ^ 0xcace0ff5e7ull);  // picks the partial start's units
  std::optional<std::string> error;
  uint64_t chosen = 0;
  for (uint64_t i = 0; i < units && chosen < want && !error; ++i) {
    if (double(units - i) * rng.Uniform() >= double(want - chosen)) continue;
    ++chosen;
    error = ReadRange(fd, offset + i * unit, unit, buf);
  }
  posix_fadvise(fd, 0, 0, POSIX_FADV_NORMAL);
  return error;
}

}  // namespace

CacheSystem& RealCacheSystem() {
  static RealSystem system;
  return system;
}

std::string CachePrepared::StepsText() const {
  std::string text;
  for (const auto& step : steps) {
    if (!step.error.empty()) continue;
    char ms[32];
    std::snprintf(ms, sizeof ms, " (%.1f ms)", step.seconds * 1000);
    text += (text.empty() ? "" : ", ") + step.name + ms;
  }
  return text.empty() ? "none" : text;
}

std::vector<std::string> CachePrepared::Warnings() const {
  std::vector<std::string> out;
  for (const auto& step : steps)
    if (!step.error.empty())
      out.push_back("cache preparation: " + step.name + " failed: " + step.error +
                    " (the target may start with a warm page cache)");
  return out;
}

std::string CacheScope(CacheState state, AgentPlace place) {
  if (state == CacheState::Keep) return "";
  if (state == CacheState::ColdGlobal) return place == AgentPlace::Guest ? "guest" : "host";
  return place == AgentPlace::Guest ? "guest" : "target";
}

CacheRegion CacheRegionFor(const JobSpec& spec, uint64_t region_size) {
  return {.offset = spec.offset,
          .size = region_size,
          .unit = spec.bs,
          .cached_fraction = spec.cached_fraction,
          .seed = spec.seed};
}

double ResidentFraction(int fd, uint64_t offset, uint64_t size) {
  const uint64_t page = PageSize();
  uint64_t begin = offset / page * page;
  const uint64_t end = (offset + size + page - 1) / page * page;
  if (end <= begin) return 0;
  // Windows bound the mapping and the vector on large devices.
  constexpr uint64_t kWindow = uint64_t(1) << 30;
  std::vector<unsigned char> vec;
  uint64_t resident = 0;
  for (; begin < end; begin += kWindow) {
    const size_t len = size_t(std::min(kWindow, end - begin));
    void* map = mmap(nullptr, len, PROT_READ, MAP_SHARED, fd, off_t(begin));
    if (map == MAP_FAILED)
      throw JobError("mmap of " + std::to_string(len) + " bytes at " + std::to_string(begin) +
                     " to measure the page cache failed: " + std::strerror(errno));
    vec.assign(len / page, 0);
    const int rc = mincore(map, len, vec.data());
    const int err = errno;
    munmap(map, len);
    if (rc != 0) throw JobError(std::string("mincore failed: ") + std::strerror(err));
    for (unsigned char v : vec) resident += v & 1;
  }
  return double(resident) / double((end - offset / page * page) / page);
}

namespace {

// Empties the cache of the target open as `fd`, in the way out.scope names ("target": its own
// writeback; else the system's sync and drop_caches), then fadvise and a block device's
// buffer cache; each step timed into `out`.
void EvictCache(CachePrepared& out, int fd, bool block, CacheSystem& sys) {
  if (out.scope == "target") {
    // fadvise(DONTNEED) skips dirty pages: the target's own writeback first. fsync works
    // on a read-only fd, and on a block device it writes back the device's page cache.
    Timed(out, "fsync", [&]() -> std::optional<std::string> {
      if (fsync(fd) != 0) return Errno("fsync");
      return std::nullopt;
    });
  } else {
    // drop_caches only drops clean pages: dirty ones must be written back first.
    Timed(out, "sync", [&] {
      sys.Sync();
      return std::nullopt;
    });
    // 3 = page cache plus dentries and inodes, so metadata lookups are cold too.
    Timed(out, "drop_caches=3", [&] { return sys.DropCaches("3"); });
  }
  // Per-file, and works where drop_caches is refused (containers, no CAP_SYS_ADMIN).
  Timed(out, "fadvise(DONTNEED)", [&]() -> std::optional<std::string> {
    const int err = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    if (err != 0) return std::string("posix_fadvise: ") + std::strerror(err);
    return std::nullopt;
  });
  // A block device's own buffer cache (what reads through /dev/X without O_DIRECT hit).
  if (block)
    Timed(out, "BLKFLSBUF", [&]() -> std::optional<std::string> {
      if (ioctl(fd, BLKFLSBUF, 0) != 0) return Errno("ioctl(BLKFLSBUF)");
      return std::nullopt;
    });
}

// Reads [begin, begin + size) of the target back into the cache as `state` asks: all of it
// (warm) or region.cached_fraction of its units (partial); timed into `out`.
void Refill(CachePrepared& out, int fd, CacheState state, const CacheRegion& region, uint64_t begin,
            uint64_t size) {
  const uint64_t page = PageSize();
  if (state == CacheState::Warm) {
    char name[64];
    std::snprintf(name, sizeof name, "warm(read %.1f MiB)", double(size) / (1 << 20));
    Timed(out, name, [&] {
      std::vector<char> buf(1 << 20);
      return ReadRange(fd, begin, size, buf);
    });
  } else if (state == CacheState::Partial) {
    const uint64_t unit = std::max<uint64_t>(1, (region.unit + page - 1) / page) * page;
    const uint64_t units = size / unit;
    const auto want = uint64_t(std::llround(region.cached_fraction * double(units)));
    const std::string name = "partial(read " + std::to_string(want) + " of " +
                             std::to_string(units) + " units of " + std::to_string(unit) + " B)";
    Timed(out, name, [&] { return ReadChosenUnits(fd, begin, unit, units, want, region.seed); });
  }
}

}  // namespace

CachePrepared PrepareCache(const std::string& target, CacheState state, CacheSystem& sys,
                           AgentPlace place, const CacheRegion& region) {
  CachePrepared out;
  if (state == CacheState::Keep) return out;
  if (state == CacheState::Partial && !(region.cached_fraction >= 0 && region.cached_fraction <= 1))
    throw JobError("cached_fraction must be in [0, 1], got " +
                   std::to_string(region.cached_fraction));
  // fadvise and BLKFLSBUF act through an fd, so an unopenable target ends preparation.
  UniqueFd fd(open(target.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid())
    throw JobError("cannot open " + target +
                   " to drop its cache: open(O_RDONLY) failed: " + std::strerror(errno));
  struct stat st;
  const bool block = fstat(fd.get(), &st) == 0 && S_ISBLK(st.st_mode);

  const uint64_t t0 = MonotonicNs();
  out.scope = CacheScope(state, place);
  EvictCache(out, fd.get(), block, sys);

  // The region, clamped to the target (size 0 = to its end).
  uint64_t target_size = 0;
  try {
    target_size = TargetSize(fd.get(), target);
  } catch (const JobError& e) {
    out.steps.push_back({"size", 0, e.what()});
  }
  const uint64_t begin = std::min(region.offset, target_size);
  const uint64_t size =
      std::min(region.size ? region.size : target_size - begin, target_size - begin);
  Refill(out, fd.get(), state, region, begin, size);
  if (size > 0)
    Timed(out, "mincore", [&]() -> std::optional<std::string> {
      try {
        out.cached_fraction = ResidentFraction(fd.get(), begin, size);
      } catch (const JobError& e) {
        return e.what();
      }
      return std::nullopt;
    });
  out.seconds = double(MonotonicNs() - t0) / 1e9;
  return out;
}

}  // namespace storbed
