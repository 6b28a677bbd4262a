// The attached loop devices under a /sys tree and the file behind each, so
// `storbed cleanup` can detach the ones over a killed run's backing file.
#pragma once

#include <string>
#include <vector>

namespace storbed {

struct AttachedLoop {
  std::string device;        // "/dev/loop3"
  std::string backing_file;  // as the kernel reports it, without a " (deleted)" suffix
  bool backing_deleted = false;
};

// Every /sys/block/loop*/loop/backing_file under `sys_root` ("/sys"). A loop device that
// is not attached has no loop/backing_file and is left out.
std::vector<AttachedLoop> ReadAttachedLoops(const std::string& sys_root);

}  // namespace storbed
