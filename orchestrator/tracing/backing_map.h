// Where a guest disk's backing lies on the host's block device, so the host device's traced
// requests can be set against QEMU's: a file's extents (FIEMAP) on its filesystem's disk,
// or a block device itself. A partition's offsets are moved by its start, since the block
// tracepoints name the whole disk and count its sectors.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace storbed {

struct FileExtent {
  uint64_t logical = 0, physical = 0, length = 0;  // bytes
};

struct BackingMap {
  bool available = false;
  std::string reason;  // why not, when !available
  std::string disk;    // the whole disk, "vda"
  uint32_t major = 0, minor = 0;
  uint64_t first_byte = 0;          // of the filesystem or device on that disk (a partition's start)
  bool is_file = false;             // false: the backing is the device itself
  std::vector<FileExtent> extents;  // a file's, sorted by logical offset
};

// The map of `backing` under `sysfs` ("/sys"). Never throws: !available with the reason.
// A chain (a loop or device-mapper device under the file) is not mapped.
BackingMap MapBacking(const std::string& backing, const std::string& sysfs = "/sys");

// The disk's 512-byte sector ranges [first, first + count) that hold the backing's bytes
// [offset, offset + bytes); empty when some of them are in no extent (a hole, or bytes
// past the extents read).
struct SectorRange {
  uint64_t sector = 0, sectors = 0;
};
std::vector<SectorRange> BackingSectors(const BackingMap& map, uint64_t offset, uint64_t bytes);

// The file's extents by FIEMAP (after syncing it). Throws std::runtime_error naming the
// file and the errno text; an extent whose data is not on the device as is (inline,
// encoded, unknown location) throws too.
std::vector<FileExtent> FileExtents(const std::string& path);

}  // namespace storbed
