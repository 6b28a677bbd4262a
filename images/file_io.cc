#include "images/file_io.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <sstream>

#include "file_read.h"
#include "images/image_error.h"

namespace storbed {
namespace {

std::string ErrnoText(int err) { return std::strerror(err); }

std::string ReadAll(const std::string& path, bool missing_ok) {
  int err = 0;
  std::optional<std::string> data = TryReadFile(path, &err);
  if (data) return *data;
  if (missing_ok && err == ENOENT) return "";
  throw ImageError(path, "cannot read " + path + ": " + ErrnoText(err));
}

std::string TempNameFor(const std::string& target) {
  // pid + counter: two builders (processes or threads) racing on one cache entry each write
  // their own temporary file; whichever renames last wins with identical content.
  static std::atomic<unsigned> counter{0};
  std::ostringstream name;
  name << target << ".tmp." << ::getpid() << "." << counter++;
  return name.str();
}

}  // namespace

std::string ReadFileBytes(const std::string& path) { return ReadAll(path, false); }

std::string ReadOptionalFile(const std::string& path) { return ReadAll(path, true); }

bool IsRegularFile(const std::string& path) {
  std::error_code ec;
  return std::filesystem::is_regular_file(path, ec);
}

AtomicFile::AtomicFile(std::string target_path)
    : target_path_(std::move(target_path)), temp_path_(TempNameFor(target_path_)) {
  out_.open(temp_path_, std::ios::binary | std::ios::trunc);
  if (!out_) {
    throw ImageError(temp_path_, "cannot create " + temp_path_ + ": " + ErrnoText(errno));
  }
}

AtomicFile::~AtomicFile() {
  if (committed_) return;
  out_.close();
  std::error_code ec;
  std::filesystem::remove(temp_path_, ec);  // best effort: we may be unwinding already
}

void AtomicFile::Commit() {
  out_.flush();
  bool ok = static_cast<bool>(out_);
  out_.close();
  if (!ok || out_.fail()) {
    throw ImageError(temp_path_, "error writing " + temp_path_ + " (disk full?)");
  }
  // fsync before rename: otherwise a crash can leave the new name pointing at an empty file.
  int fd = ::open(temp_path_.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
  if (std::rename(temp_path_.c_str(), target_path_.c_str()) != 0) {
    throw ImageError(target_path_, "cannot rename " + temp_path_ + " to " + target_path_ + ": " +
                                       ErrnoText(errno));
  }
  committed_ = true;
}

void WriteFileAtomic(const std::string& path, std::string_view data) {
  AtomicFile file(path);
  file.stream().write(data.data(), static_cast<std::streamsize>(data.size()));
  file.Commit();
}

}  // namespace storbed
