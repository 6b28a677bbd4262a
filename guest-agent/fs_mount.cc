#include "fs_mount.h"

#include <sys/mount.h>
#include <sys/stat.h>

#include <cerrno>
#include <sstream>
#include <stdexcept>

#include "errors.h"
#include "file_read.h"

namespace storbed::agent {
namespace {

struct MountEntry {
  std::string device, dir, type;
};

// /proc/mounts fields are space separated with octal escapes for spaces; our paths have none.
std::vector<MountEntry> ParseMounts(const std::string& text) {
  std::vector<MountEntry> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    MountEntry e;
    if (fields >> e.device >> e.dir >> e.type) out.push_back(e);
  }
  return out;
}

std::string Basename(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

MountOps RealMountOps() {
  MountOps ops;
  ops.read_mounts = [] { return ReadFileOrEmpty("/proc/mounts"); };
  ops.make_dirs = [](const std::string& dir) {
    for (size_t pos = 1; pos != std::string::npos;) {
      pos = dir.find('/', pos + 1);
      const std::string prefix = dir.substr(0, pos);
      if (::mkdir(prefix.c_str(), 0755) != 0 && errno != EEXIST)
        throw SystemError("mkdir " + prefix, errno);
    }
  };
  ops.mount = [](const std::string& device, const std::string& dir, const std::string& type) {
    if (::mount(device.c_str(), dir.c_str(), type.c_str(), 0, nullptr) != 0)
      throw SystemError("mount -t " + type + " " + device + " " + dir, errno);
  };
  return ops;
}

std::string MountPointFor(const std::string& device) {
  return "/mnt/storbed/" + Basename(device);
}

JobSpec MountFilesystemTarget(const JobSpec& job, const MountOps& ops) {
  if (job.filesystem.empty()) return job;
  const std::string dir = MountPointFor(job.target);
  bool mounted = false;
  for (const MountEntry& e : ParseMounts(ops.read_mounts())) {
    if (e.dir == dir) {
      if (e.device != job.target || e.type != job.filesystem)
        throw std::runtime_error(dir + " already holds " + e.type + " on " + e.device +
                                 ", not " + job.filesystem + " on " + job.target);
      mounted = true;
    } else if (e.device == job.target) {
      throw std::runtime_error(job.target + " is already mounted on " + e.dir + " (" + e.type +
                               "); storbed mounts filesystem targets only at " + dir);
    }
  }
  if (!mounted) {
    ops.make_dirs(dir);
    try {
      ops.mount(job.target, dir, job.filesystem);
    } catch (const std::exception& e) {
      throw std::runtime_error(std::string("filesystem target: ") + e.what() +
                               " (is the " + job.filesystem +
                               " module in the image, and was the disk prepared with " +
                               job.filesystem + "?)");
    }
  }
  JobSpec out = job;
  out.target = dir + "/" + job.fs_file;
  out.filesystem.clear();
  return out;
}

}  // namespace storbed::agent
