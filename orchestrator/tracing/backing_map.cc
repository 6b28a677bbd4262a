#include "tracing/backing_map.h"

#include <fcntl.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "unique_fd.h"

namespace storbed {
namespace {

std::string ReadLine(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

}  // namespace

std::vector<FileExtent> FileExtents(const std::string& path) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) throw std::runtime_error("cannot open " + path + ": " + std::strerror(errno));
  constexpr uint32_t kBatch = 256;
  std::vector<char> buf(sizeof(fiemap) + kBatch * sizeof(fiemap_extent));
  std::vector<FileExtent> out;
  uint64_t start = 0;
  for (;;) {
    std::fill(buf.begin(), buf.end(), 0);
    auto* fm = reinterpret_cast<fiemap*>(buf.data());
    fm->fm_start = start;
    fm->fm_length = FIEMAP_MAX_OFFSET - start;
    fm->fm_flags = FIEMAP_FLAG_SYNC;
    fm->fm_extent_count = kBatch;
    if (::ioctl(fd.get(), FS_IOC_FIEMAP, fm) != 0)
      throw std::runtime_error("FIEMAP of " + path + " failed: " + std::strerror(errno));
    if (fm->fm_mapped_extents == 0) break;
    bool last = false;
    for (uint32_t i = 0; i < fm->fm_mapped_extents; ++i) {
      const fiemap_extent& e = fm->fm_extents[i];
      if (e.fe_flags & (FIEMAP_EXTENT_UNKNOWN | FIEMAP_EXTENT_ENCODED |
                        FIEMAP_EXTENT_DATA_INLINE | FIEMAP_EXTENT_NOT_ALIGNED))
        throw std::runtime_error(path + " has an extent not stored as is on the device (flags 0x" +
                                 std::to_string(e.fe_flags) + ")");
      out.push_back({e.fe_logical, e.fe_physical, e.fe_length});
      start = e.fe_logical + e.fe_length;
      last = e.fe_flags & FIEMAP_EXTENT_LAST;
    }
    if (last) break;
  }
  return out;
}

BackingMap MapBacking(const std::string& backing, const std::string& sysfs) {
  BackingMap m;
  struct stat st {};
  if (::stat(backing.c_str(), &st) != 0) {
    m.reason = "cannot stat " + backing + ": " + std::strerror(errno);
    return m;
  }
  m.is_file = S_ISREG(st.st_mode);
  if (!m.is_file && !S_ISBLK(st.st_mode)) {
    m.reason = backing + " is neither a file nor a block device";
    return m;
  }
  const dev_t dev = m.is_file ? st.st_dev : st.st_rdev;
  std::string node =
      sysfs + "/dev/block/" + std::to_string(major(dev)) + ":" + std::to_string(minor(dev));
  std::error_code ec;
  if (!std::filesystem::exists(node, ec)) {
    m.reason = "no block device under " + backing + " (" + node + " is missing: tmpfs or the like)";
    return m;
  }
  std::string name = std::filesystem::canonical(node, ec).filename().string();
  m.major = major(dev);
  m.minor = minor(dev);
  if (std::filesystem::exists(node + "/partition", ec)) {
    m.first_byte = std::stoull("0" + ReadLine(node + "/start")) * 512;
    const std::filesystem::path disk_dir = std::filesystem::canonical(node, ec).parent_path();
    name = disk_dir.filename().string();
    const std::string numbers = ReadLine(disk_dir.string() + "/dev");
    const size_t colon = numbers.find(':');
    if (colon == std::string::npos) {
      m.reason = "cannot read the device number of " + name;
      return m;
    }
    m.major = uint32_t(std::stoul(numbers.substr(0, colon)));
    m.minor = uint32_t(std::stoul(numbers.substr(colon + 1)));
  }
  m.disk = name;
  // A loop or device-mapper device lays its own map over the disk below: not followed.
  if (std::filesystem::exists(sysfs + "/block/" + name + "/loop", ec) ||
      std::filesystem::exists(sysfs + "/block/" + name + "/dm", ec)) {
    m.reason = name + " is a loop or device-mapper device, whose requests go on to another "
               "device: the host device is not traced through it";
    return m;
  }
  if (m.is_file) {
    try {
      m.extents = FileExtents(backing);
    } catch (const std::exception& e) {
      m.reason = e.what();
      return m;
    }
  }
  m.available = true;
  return m;
}

std::vector<SectorRange> BackingSectors(const BackingMap& map, uint64_t offset, uint64_t bytes) {
  std::vector<SectorRange> out;
  if (!map.available) return out;
  if (!map.is_file) return {{(map.first_byte + offset) / 512, bytes / 512}};
  auto it = std::upper_bound(map.extents.begin(), map.extents.end(), offset,
                             [](uint64_t o, const FileExtent& e) { return o < e.logical; });
  if (it == map.extents.begin()) return {};
  --it;
  uint64_t at = offset, left = bytes;
  while (left > 0) {
    if (it == map.extents.end() || at < it->logical || at >= it->logical + it->length) return {};
    const uint64_t take = std::min(left, it->logical + it->length - at);
    const uint64_t device_byte = map.first_byte + it->physical + (at - it->logical);
    if (!out.empty() && out.back().sector + out.back().sectors == device_byte / 512)
      out.back().sectors += take / 512;
    else
      out.push_back({device_byte / 512, take / 512});
    at += take;
    left -= take;
    ++it;
  }
  return out;
}

}  // namespace storbed
