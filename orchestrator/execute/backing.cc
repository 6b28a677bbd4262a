#include "execute/backing.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "backend/child_process.h"
#include "backend/interrupt.h"
#include "file_read.h"

namespace storbed {
namespace {

std::runtime_error SysError(const std::string& what, const std::string& path) {
  return std::runtime_error(what + " " + path + ": " + std::strerror(errno));
}

struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) close(fd);
  }
};

}  // namespace

bool FileHasHoles(int fd, uint64_t size) {
  if (size == 0) return false;
  const off_t hole = lseek(fd, 0, SEEK_HOLE);
  // Every file has a virtual hole at EOF; a hole before it is a real one.
  return hole >= 0 && static_cast<uint64_t>(hole) < size;
}

Backing CreateFilledBacking(const std::string& path, uint64_t size_bytes) {
  Fd f{open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600)};
  if (f.fd < 0) throw SysError("cannot create backing file", path);
  constexpr size_t kChunk = 1 << 20;
  std::vector<uint64_t> buf(kChunk / sizeof(uint64_t));
  uint64_t x = 0x9e3779b97f4a7c15ull;  // xorshift: cheap, incompressible, never all zero
  for (uint64_t done = 0; done < size_bytes;) {
    for (auto& w : buf) {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      w = x;
    }
    const size_t n = std::min<uint64_t>(kChunk, size_bytes - done);
    // A multi-GiB fill took minutes with SIGTERM ignored (issue 38): look between chunks.
    ThrowIfInterrupted();
    const ssize_t w = pwrite(f.fd, buf.data(), n, done);
    if (w < 0) throw SysError("cannot fill backing file", path);
    done += static_cast<uint64_t>(w);
  }
  if (fsync(f.fd) != 0) throw SysError("cannot fsync backing file", path);
  Backing b;
  b.path = path;
  b.size_bytes = size_bytes;
  b.created = true;
  b.how = "created and filled with " + std::to_string(size_bytes) +
          " bytes of pseudo-random data (no holes)";
  return b;
}

void ConvertToQcow2(const std::string& raw, const std::string& qcow2) {
  const std::string qemu_img = ProgramPath("qemu-img");
  if (qemu_img.empty())
    throw std::runtime_error("disk.format qcow2 needs qemu-img, which is not on PATH");
  // An argv, no shell: paths are passed as they are. Bounded: Ctrl-C (and every handled
  // signal) ends it, and so does a deadline far above a local disk's copy time.
  struct stat st {};
  const uint64_t bytes = ::stat(raw.c_str(), &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
  const auto timeout = std::chrono::minutes(5) + std::chrono::seconds(bytes / (64ull << 20));
  const std::string log = qcow2 + ".convert.log";
  ChildProcess child = RunToEnd({qemu_img, "convert", "-q", "-f", "raw", "-O", "qcow2", raw, qcow2},
                                log, std::chrono::duration_cast<std::chrono::milliseconds>(timeout),
                                [] { ThrowIfInterrupted(); });
  std::string text = ReadFileOrEmpty(log);
  std::remove(log.c_str());
  if (!child.ExitedSuccessfully())
    throw std::runtime_error("qemu-img convert -O qcow2 " + raw + " " + qcow2 + " failed (" +
                             child.ExitDescription() + "): " + text);
  std::remove(raw.c_str());
}

Backing UseExistingBacking(const std::string& path, bool reads) {
  Fd f{open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (f.fd < 0) throw SysError("cannot open backing", path);
  struct stat st {};
  if (fstat(f.fd, &st) != 0) throw SysError("cannot stat backing", path);
  Backing b;
  b.path = path;
  if (S_ISBLK(st.st_mode)) {
    const off_t end = lseek(f.fd, 0, SEEK_END);
    if (end < 0) throw SysError("cannot size block device", path);
    b.size_bytes = static_cast<uint64_t>(end);
    b.how = "user-named block device, used as is";
    b.block_device = true;
  } else if (S_ISREG(st.st_mode)) {
    b.size_bytes = static_cast<uint64_t>(st.st_size);
    if (reads && FileHasHoles(f.fd, b.size_bytes))
      throw std::runtime_error("backing " + path +
                               " has holes (sparse or never written): reads of holes never reach "
                               "the device; fill it with data first (e.g. dd if=/dev/urandom)");
    b.how = "user-named file, used as is (checked: no holes)";
  } else {
    throw std::runtime_error("backing " + path + " is neither a regular file nor a block device");
  }
  if (b.size_bytes == 0) throw std::runtime_error("backing " + path + " is empty");
  return b;
}

}  // namespace storbed
