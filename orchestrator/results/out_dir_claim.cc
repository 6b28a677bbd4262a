#include "results/out_dir_claim.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <ostream>

namespace storbed {
namespace {

namespace fs = std::filesystem;

std::string Errno() { return std::strerror(errno); }

// The pid the holder wrote into the lock file, or "unknown".
std::string HolderPid(int fd) {
  char buf[32] = {};
  const ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
  std::string pid = n > 0 ? std::string(buf, n) : "";
  while (!pid.empty() && (pid.back() == '\n' || pid.back() == ' ')) pid.pop_back();
  return pid.empty() ? "unknown" : pid;
}

// Opens and locks DIR/.storbed.lock without waiting: a second run must refuse at once.
int LockDir(const std::string& dir) {
  const std::string file = dir + "/" + kOutDirLockFile;
  const int fd = open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0) throw OutDirError("--out " + dir + ": cannot open " + file + ": " + Errno());
  if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    const std::string pid = HolderPid(fd);
    close(fd);
    if (err == EWOULDBLOCK)
      throw OutDirError("--out " + dir + ": another storbed run (pid " + pid +
                        ") is writing there; wait for it to end or give another --out");
    throw OutDirError("--out " + dir + ": cannot lock " + file + ": " + std::strerror(err));
  }
  const std::string pid = std::to_string(getpid()) + "\n";
  if (ftruncate(fd, 0) != 0 || pwrite(fd, pid.data(), pid.size(), 0) < 0) {
    const std::string why = Errno();
    close(fd);
    throw OutDirError("--out " + dir + ": cannot write " + file + ": " + why);
  }
  return fd;
}

bool HoldsEarlierRun(const std::string& dir) {
  std::error_code ec;
  return fs::exists(dir + "/manifest.json", ec) || fs::exists(dir + "/results.json", ec);
}

// The first of DIR.earlier-1, -2, ... that does not exist.
std::string AsideName(const std::string& dir) {
  std::error_code ec;
  for (int n = 1;; ++n) {
    const std::string name = dir + ".earlier-" + std::to_string(n);
    if (!fs::exists(fs::symlink_status(name, ec))) return name;
  }
}

}  // namespace

OutDirClaim::OutDirClaim(const std::string& path, std::ostream& log) {
  std::string dir = path;
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  std::error_code ec;
  if (fs::exists(fs::symlink_status(dir, ec)) && !fs::is_directory(dir, ec))
    throw OutDirError("--out " + dir + ": exists and is not a directory");
  fs::create_directories(dir, ec);
  if (ec) throw OutDirError("--out " + dir + ": cannot create it: " + ec.message());
  // A directory of other files is refused before the lock file is made in it.
  if (!HoldsEarlierRun(dir))
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
      if (entry.path().filename() == kOutDirLockFile) continue;
      throw OutDirError("--out " + dir + ": holds files that are not storbed results (" +
                        entry.path().filename().string() + "); give a new or empty directory");
    }
  fd_ = LockDir(dir);
  if (HoldsEarlierRun(dir)) {
    // Renamed while we hold its lock: no run is writing there. The new directory is
    // locked again before the old lock goes, so a racing run refuses on one of them.
    const std::string aside = AsideName(dir);
    if (std::rename(dir.c_str(), aside.c_str()) != 0) {
      const std::string why = Errno();
      close(fd_);
      throw OutDirError("--out " + dir + ": holds an earlier run's results and cannot be moved to " +
                        aside + ": " + why + "; give another --out");
    }
    fs::create_directories(dir, ec);
    const int old = fd_;
    try {
      fd_ = LockDir(dir);
    } catch (...) {
      close(old);
      throw;
    }
    close(old);
    moved_to_ = aside;
    log << "storbed: note: " << dir << " held an earlier run's results; moved them to " << aside
        << "\n";
    return;
  }
}

OutDirClaim::~OutDirClaim() {
  if (fd_ >= 0) close(fd_);
}

std::string LiveWriterOf(const std::string& dir) {
  const std::string file = dir + "/" + kOutDirLockFile;
  const int fd = open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return "";  // never claimed: results written by hand or by an older storbed
  // A shared lock is enough to test: it fails only while a run holds its exclusive one.
  std::string pid;
  if (flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK) pid = HolderPid(fd);
  close(fd);
  // Our own claim (flock conflicts across open files of one process too) is not a writer.
  return pid == std::to_string(getpid()) ? "" : pid;
}

}  // namespace storbed
