// Tests only: a data-filled file in a fresh directory under /var/tmp (a real disk
// filesystem: O_DIRECT fails on tmpfs, and /tmp may be tmpfs). Removed on destruction.
#pragma once

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

namespace storbed {

class TempDir {
 public:
  TempDir() {
    char tmpl[] = "/var/tmp/storbed-io-test-XXXXXX";
    if (!mkdtemp(tmpl)) throw std::runtime_error("mkdtemp under /var/tmp failed");
    path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Writes `size` bytes of non-zero data (byte i = (i * 131 + 7) & 0xff), fsynced so
// the blocks are allocated on disk, not holes or delayed allocations.
inline std::string WriteDataFile(const std::string& dir, const std::string& name, uint64_t size) {
  const std::string path = dir + "/" + name;
  const int fd = open(path.c_str(), O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0600);
  if (fd < 0) throw std::runtime_error("cannot create " + path);
  std::vector<unsigned char> chunk(1 << 20);
  for (size_t i = 0; i < chunk.size(); ++i) chunk[i] = static_cast<unsigned char>(i * 131 + 7);
  for (uint64_t done = 0; done < size;) {
    const size_t n = size - done < chunk.size() ? size_t(size - done) : chunk.size();
    if (write(fd, chunk.data(), n) != ssize_t(n)) {
      close(fd);
      throw std::runtime_error("cannot write " + path);
    }
    done += n;
  }
  fsync(fd);
  close(fd);
  return path;
}

}  // namespace storbed
