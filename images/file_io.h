// Whole-file reads and crash-safe writes for the image builder and its cache.
#pragma once

#include <cstdint>
#include <fstream>
#include <string>
#include <string_view>

namespace storbed {

// The bytes of a file. Throws ImageError naming the path and the errno text.
std::string ReadFileBytes(const std::string& path);

// The bytes of a file, or "" when it does not exist (for optional files like modules.builtin).
// Other failures (permission, I/O) still throw ImageError.
std::string ReadOptionalFile(const std::string& path);

// True when `path` names a regular file (following symlinks).
bool IsRegularFile(const std::string& path);

// A file written under a temporary name in the target's directory and renamed over the
// target on Commit(), so a reader (or a second build) never sees a half-written file.
// Without Commit() the temporary file is removed, on every path out, exceptions included.
class AtomicFile {
 public:
  // Throws ImageError when the temporary file cannot be created.
  explicit AtomicFile(std::string target_path);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  std::ostream& stream() { return out_; }
  // Flushes, fsyncs and renames onto the target. Throws ImageError on a write or rename error.
  void Commit();
  const std::string& temp_path() const { return temp_path_; }

 private:
  std::string target_path_;
  std::string temp_path_;
  std::ofstream out_;
  bool committed_ = false;
};

// WriteFileBytes through an AtomicFile.
void WriteFileAtomic(const std::string& path, std::string_view data);

}  // namespace storbed
