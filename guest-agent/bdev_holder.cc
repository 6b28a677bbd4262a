#include "bdev_holder.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <map>
#include <mutex>

namespace storbed::agent {
namespace {

std::mutex& HoldersMutex() {
  static std::mutex m;
  return m;
}

// Device number -> fd, kept until the agent exits (PID 1 powers off, which closes them).
std::map<dev_t, int>& Holders() {
  static std::map<dev_t, int> holders;
  return holders;
}

}  // namespace

void HoldBlockDeviceOpen(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0 || !S_ISBLK(st.st_mode)) return;
  std::lock_guard<std::mutex> lock(HoldersMutex());
  if (Holders().count(st.st_rdev)) return;
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd >= 0) Holders()[st.st_rdev] = fd;
}

size_t HeldBlockDevices() {
  std::lock_guard<std::mutex> lock(HoldersMutex());
  return Holders().size();
}

}  // namespace storbed::agent
