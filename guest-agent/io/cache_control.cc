#include "cache_control.h"

#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <functional>

#include "engine.h"
#include "job_runner.h"
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

CachePrepared PrepareCache(const std::string& target, CacheState state, CacheSystem& sys) {
  CachePrepared out;
  if (state == CacheState::Keep) return out;
  // fadvise and BLKFLSBUF act through an fd, so an unopenable target ends preparation.
  UniqueFd fd(open(target.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid())
    throw JobError("cannot open " + target + " to drop its cache: open(O_RDONLY) failed: " +
                   std::strerror(errno));
  struct stat st;
  const bool block = fstat(fd.get(), &st) == 0 && S_ISBLK(st.st_mode);

  const uint64_t t0 = MonotonicNs();
  // drop_caches only drops clean pages: dirty ones must be written back first.
  Timed(out, "sync", [&] {
    sys.Sync();
    return std::nullopt;
  });
  // 3 = page cache plus dentries and inodes, so metadata lookups are cold too.
  Timed(out, "drop_caches=3", [&] { return sys.DropCaches("3"); });
  // Per-file, and works where drop_caches is refused (containers, no CAP_SYS_ADMIN).
  Timed(out, "fadvise(DONTNEED)", [&]() -> std::optional<std::string> {
    const int err = posix_fadvise(fd.get(), 0, 0, POSIX_FADV_DONTNEED);
    if (err != 0) return std::string("posix_fadvise: ") + std::strerror(err);
    return std::nullopt;
  });
  // A block device's own buffer cache (what reads through /dev/X without O_DIRECT hit).
  if (block)
    Timed(out, "BLKFLSBUF", [&]() -> std::optional<std::string> {
      if (ioctl(fd.get(), BLKFLSBUF, 0) != 0) return Errno("ioctl(BLKFLSBUF)");
      return std::nullopt;
    });
  out.seconds = double(MonotonicNs() - t0) / 1e9;
  return out;
}

}  // namespace storbed
