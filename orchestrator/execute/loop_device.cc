#include "execute/loop_device.h"

#include <fcntl.h>
#include <linux/loop.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <thread>
#include <utility>

namespace storbed {
namespace {

std::runtime_error LoopError(const std::string& what, const std::string& file) {
  return std::runtime_error("loop device for " + file + ": " + what + ": " +
                            std::strerror(errno));
}

}  // namespace

LoopDevice LoopDevice::Attach(const std::string& file, bool direct_io) {
  const int backing = open(file.c_str(), O_RDWR | O_CLOEXEC | (direct_io ? O_DIRECT : 0));
  if (backing < 0) throw LoopError("open backing", file);
  const int control = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
  if (control < 0) {
    close(backing);
    throw LoopError("open /dev/loop-control", file);
  }
  // Another process may take the free device between GET_FREE and CONFIGURE: retry.
  for (int attempt = 0; attempt < 10; ++attempt) {
    const int n = ioctl(control, LOOP_CTL_GET_FREE);
    if (n < 0) break;
    const std::string path = "/dev/loop" + std::to_string(n);
    int fd = -1;
    for (int wait = 0; wait < 50 && fd < 0; ++wait) {  // udev/devtmpfs may lag the ioctl
      fd = open(path.c_str(), O_RDWR | O_CLOEXEC);
      if (fd < 0) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    if (fd < 0) continue;
    loop_config config{};
    config.fd = static_cast<uint32_t>(backing);
    config.info.lo_flags = LO_FLAGS_AUTOCLEAR | (direct_io ? LO_FLAGS_DIRECT_IO : 0);
    std::strncpy(reinterpret_cast<char*>(config.info.lo_file_name), file.c_str(),
                 LO_NAME_SIZE - 1);
    if (ioctl(fd, LOOP_CONFIGURE, &config) == 0) {
      close(backing);
      close(control);
      return LoopDevice(fd, path);
    }
    const int err = errno;
    close(fd);
    if (err != EBUSY) {
      close(backing);
      close(control);
      errno = err;
      throw LoopError("LOOP_CONFIGURE " + path, file);
    }
  }
  close(backing);
  close(control);
  throw LoopError("no free loop device", file);
}

LoopDevice::LoopDevice(LoopDevice&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), path_(std::move(other.path_)) {}

LoopDevice& LoopDevice::operator=(LoopDevice&& other) noexcept {
  if (this != &other) {
    Detach();
    fd_ = std::exchange(other.fd_, -1);
    path_ = std::move(other.path_);
  }
  return *this;
}

LoopDevice::~LoopDevice() { Detach(); }

void LoopDevice::Detach() {
  if (fd_ < 0) return;
  // Explicit clear; with AUTOCLEAR set the kernel also detaches at last close.
  ioctl(fd_, LOOP_CLR_FD, 0);
  close(fd_);
  fd_ = -1;
}

}  // namespace storbed
