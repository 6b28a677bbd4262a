// Filesystem targets: a job whose `filesystem` is set names a block device holding an
// ext4 or xfs filesystem the host prepared. The agent mounts it once (it stays mounted
// for the agent's lifetime, so the page cache of its files survives between jobs as it
// does for a held block device) and runs the job on the file inside it.
#pragma once

#include <functional>
#include <string>

#include "job.h"

namespace storbed::agent {

// The system calls, replaceable in tests.
struct MountOps {
  // /proc/mounts as text.
  std::function<std::string()> read_mounts;
  // mkdir -p; throws SystemError.
  std::function<void(const std::string& dir)> make_dirs;
  // mount(2); throws SystemError naming device, mount point and type.
  std::function<void(const std::string& device, const std::string& dir,
                     const std::string& type)> mount;
};
MountOps RealMountOps();

// Where the filesystem on `device` is mounted: "/mnt/storbed/<device basename>".
std::string MountPointFor(const std::string& device);

// For a filesystem job: mounts job.target (unless /proc/mounts shows it already mounted
// there with that type; mounted elsewhere or with another type is an error) and returns
// the job with target = "<mount point>/<fs_file>" and filesystem cleared. Other jobs come
// back unchanged. Throws std::runtime_error with the device, type and reason.
JobSpec MountFilesystemTarget(const JobSpec& job, const MountOps& ops = RealMountOps());

}  // namespace storbed::agent
