// A loop device over a backing file for the bare-metal twin: the host agent then
// reads a block device with its own /proc/diskstats line, like the guest does.
#pragma once

#include <string>

namespace storbed {

// Move-only owner of an attached loop device; detaches on destruction, on every path.
// Attached with LO_FLAGS_AUTOCLEAR too, so the kernel detaches it even if storbed is
// SIGKILLed once the last opener closes.
class LoopDevice {
 public:
  // Attaches `file` (direct IO on when `direct_io`, so the loop does not add a second
  // page cache). Throws std::runtime_error naming the file and the ioctl.
  static LoopDevice Attach(const std::string& file, bool direct_io);

  LoopDevice(LoopDevice&& other) noexcept;
  LoopDevice& operator=(LoopDevice&& other) noexcept;
  LoopDevice(const LoopDevice&) = delete;
  LoopDevice& operator=(const LoopDevice&) = delete;
  ~LoopDevice();

  const std::string& path() const { return path_; }  // "/dev/loop3"
  void Detach();

 private:
  LoopDevice(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
  int fd_ = -1;
  std::string path_;
};

}  // namespace storbed
