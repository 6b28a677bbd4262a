#include "execute/host_mount.h"

#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <stdexcept>
#include <thread>
#include <utility>

namespace storbed {

HostMount HostMount::Mount(const std::string& device, const std::string& dir,
                           const std::string& type) {
  if (mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST)
    throw std::runtime_error("cannot create mount point " + dir + ": " + std::strerror(errno));
  if (mount(device.c_str(), dir.c_str(), type.c_str(), MS_NOATIME, nullptr) != 0) {
    const std::string why = std::strerror(errno);
    rmdir(dir.c_str());
    throw std::runtime_error("cannot mount " + device + " (" + type + ") on " + dir + ": " + why);
  }
  return HostMount(dir);
}

HostMount::HostMount(HostMount&& other) noexcept : dir_(std::move(other.dir_)) {
  other.dir_.clear();
}

HostMount::~HostMount() {
  if (dir_.empty()) return;
  // The agent has exited, but a just-closed file can keep the mount busy for a moment.
  for (int i = 0; i < 50 && umount2(dir_.c_str(), 0) != 0 && errno == EBUSY; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  // Lazy as a last resort: the mount goes once nothing uses it, and the loop's
  // autoclear detaches the device then.
  umount2(dir_.c_str(), MNT_DETACH);
  rmdir(dir_.c_str());
}

}  // namespace storbed
