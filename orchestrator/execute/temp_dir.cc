#include "execute/temp_dir.h"

#include <stdlib.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <vector>

#include "owner_marker.h"

namespace storbed {

TempDir::TempDir(const std::string& parent, const std::string& prefix) {
  std::string templ = parent + "/" + prefix + "XXXXXX";
  std::vector<char> buf(templ.begin(), templ.end());
  buf.push_back('\0');
  if (!mkdtemp(buf.data()))
    throw std::runtime_error("cannot create a temporary directory in " + parent + ": " +
                             std::strerror(errno));
  path_ = buf.data();
  try {
    WriteOwnerMarker(path_);
  } catch (...) {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
    throw;
  }
}

TempDir::TempDir(TempDir&& other) noexcept : path_(std::move(other.path_)) { other.path_.clear(); }

TempDir::~TempDir() {
  if (path_.empty()) return;
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

}  // namespace storbed
