// The raw backing file a run's disks sit on. storbed fills what it creates with data:
// reads of a sparse or fallocated file never reach the device (the filesystem answers
// with zeros), which would make every read figure a lie.
#pragma once

#include <cstdint>
#include <string>

namespace storbed {

struct Backing {
  std::string path;
  uint64_t size_bytes = 0;
  bool created = false;    // storbed made (and filled) it; false for a user-named one
  std::string how;         // what storbed did, for the manifest
};

// Creates `path` at `size_bytes`, every byte written (a seeded non-zero pattern), fsynced.
// Throws std::runtime_error naming the path and the errno text.
Backing CreateFilledBacking(const std::string& path, uint64_t size_bytes);

// Checks a user-named file or block device: it must exist; a regular file with holes
// is refused for read jobs (`reads` true) because holes never reach the device.
Backing UseExistingBacking(const std::string& path, bool reads);

// True when the regular file at fd has a hole before its end (SEEK_HOLE).
bool FileHasHoles(int fd, uint64_t size);

}  // namespace storbed
