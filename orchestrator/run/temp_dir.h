// A move-only temporary directory, removed with its contents on every exit path.
#pragma once

#include <string>

namespace storbed {

class TempDir {
 public:
  // mkdtemp under `parent` with `prefix`. Throws std::runtime_error with the errno text.
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
