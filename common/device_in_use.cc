#include "device_in_use.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

namespace storbed {
namespace {

namespace fs = std::filesystem;

std::string MajorMinor(dev_t dev) {
  return std::to_string(major(dev)) + ":" + std::to_string(minor(dev));
}

// The device and its partitions ("8:0", "8:1", ...), each with its name for messages.
std::vector<std::pair<std::string, std::string>> DeviceAndPartitions(const std::string& path,
                                                                     dev_t dev,
                                                                     const DeviceUseSources& src) {
  std::vector<std::pair<std::string, std::string>> out = {{MajorMinor(dev), path}};
  std::error_code ec;
  const fs::path sys = fs::path(src.sys_dev_block) / MajorMinor(dev);
  for (const auto& entry : fs::directory_iterator(sys, ec)) {
    if (!fs::exists(entry.path() / "partition", ec)) continue;
    std::ifstream in(entry.path() / "dev");
    std::string number;
    if (in >> number) out.push_back({number, "its partition " + entry.path().filename().string()});
  }
  return out;
}

std::string Subject(const std::string& name, const std::string& path) {
  return name == path ? "is" : "has " + name + ", which is";
}

}  // namespace

std::vector<std::string> MountPointsOf(const std::string& path, const std::string& mountinfo) {
  std::vector<std::string> out;
  struct stat st {};
  if (stat(path.c_str(), &st) != 0 || !S_ISBLK(st.st_mode)) return out;
  std::ifstream in(mountinfo);
  for (std::string line; std::getline(in, line);) {
    std::istringstream fields(line);
    std::string id, parent, number, root, mountpoint;
    fields >> id >> parent >> number >> root >> mountpoint;
    if (number == MajorMinor(st.st_rdev)) out.push_back(mountpoint);
  }
  return out;
}

std::string DeviceInUse(const std::string& path, const DeviceUseSources& src) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0 || !S_ISBLK(st.st_mode)) return "";
  const auto devices = DeviceAndPartitions(path, st.st_rdev, src);
  // mountinfo: id parent major:minor root mountpoint ...
  std::vector<std::pair<std::string, std::string>> mounts;  // major:minor, mount point
  std::ifstream mountinfo(src.mountinfo);
  for (std::string line; std::getline(mountinfo, line);) {
    std::istringstream fields(line);
    std::string id, parent, number, root, mountpoint;
    if (fields >> id >> parent >> number >> root >> mountpoint)
      mounts.push_back({number, mountpoint});
  }
  // The root filesystem first: the most serious use, named as such.
  for (const auto& [number, mountpoint] : mounts)
    for (const auto& [dev, name] : devices)
      if (number == dev && mountpoint == "/")
        return (name == path ? "holds" : "has " + name + ", which holds") +
               std::string(" the root filesystem");
  for (const auto& [number, mountpoint] : mounts)
    for (const auto& [dev, name] : devices)
      if (number == dev) return Subject(name, path) + " mounted at " + mountpoint;
  std::error_code ec;
  for (const auto& [dev, name] : devices) {
    for (const auto& holder :
         fs::directory_iterator(fs::path(src.sys_dev_block) / dev / "holders", ec))
      return Subject(name, path) + " held by " + holder.path().filename().string() +
             " (md, LVM or dm-crypt)";
  }
  std::ifstream swaps(src.swaps);
  std::string line;
  std::getline(swaps, line);  // header
  while (std::getline(swaps, line)) {
    std::istringstream fields(line);
    std::string swap_path;
    fields >> swap_path;
    struct stat sw {};
    if (stat(swap_path.c_str(), &sw) != 0 || !S_ISBLK(sw.st_mode)) continue;
    for (const auto& [dev, name] : devices)
      if (MajorMinor(sw.st_rdev) == dev) return Subject(name, path) + " in use as swap";
  }
  if (src.exclusive_open) {
    // Read-only and non-blocking: the open itself changes nothing on the device.
    const int fd = open(path.c_str(), O_RDONLY | O_EXCL | O_NONBLOCK | O_CLOEXEC);
    if (fd >= 0) close(fd);
    if (fd < 0 && errno == EBUSY) return "is open exclusively by another program";
  }
  return "";
}

}  // namespace storbed
