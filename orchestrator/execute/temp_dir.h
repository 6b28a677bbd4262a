// A move-only temporary directory, removed with its contents on every exit path. It holds
// an `owner` file (common/owner_marker.h) so `storbed cleanup` can remove it after a SIGKILL,
// the one exit no destructor sees.
#pragma once

#include <string>

namespace storbed {

class TempDir {
 public:
  // mkdtemp under `parent` with `prefix`, then writes the owner marker. Throws
  // std::runtime_error with the errno text (and removes the directory if the marker fails).
  TempDir(const std::string& parent, const std::string& prefix);
  TempDir(TempDir&& other) noexcept;
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  TempDir& operator=(TempDir&&) = delete;
  ~TempDir();

  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace storbed
