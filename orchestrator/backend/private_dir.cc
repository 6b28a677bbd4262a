#include "backend/private_dir.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>

namespace storbed {

void MakePrivateDir(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw std::runtime_error("cannot create " + dir + ": " + ec.message());
  if (chmod(dir.c_str(), 0700) != 0)
    throw std::runtime_error("cannot make " + dir + " private (chmod 0700): " +
                             std::strerror(errno));
}

void RestrictToOwner(const std::string& path) {
  if (chmod(path.c_str(), 0600) != 0)
    throw std::runtime_error("cannot make " + path + " private (chmod 0600): " +
                             std::strerror(errno));
}

}  // namespace storbed
