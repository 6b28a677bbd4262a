// The raw backing file a run's disks sit on. storbed fills what it creates with data:
// reads of a sparse or fallocated file never reach the device (the filesystem answers
// with zeros), which would make every read figure a lie.
#pragma once

#include <cstdint>
#include <string>

namespace storbed {

// The test file's name inside a filesystem image (JobSpec::fs_file's default).
inline constexpr const char* kFsTestFile = "storbed.dat";

struct Backing {
  std::string path;
  uint64_t size_bytes = 0;
  bool created = false;    // storbed made (and filled) it; false for a user-named one
  std::string how;         // what storbed did, for the manifest
  std::string format = "raw";  // raw | qcow2: how QEMU reads the file
  bool block_device = false;   // a user-named block device (QEMU driver host_device)
  bool null_co = false;        // no storage at all (path empty)
  std::string filesystem;      // "" or the filesystem the image holds (ext4, xfs)
};

// Converts the raw file `raw` to a qcow2 image `qcow2` with `qemu-img convert -O qcow2`
// (every cluster allocated, since the raw file has no holes) and removes `raw`.
// Throws std::runtime_error with qemu-img's output.
void ConvertToQcow2(const std::string& raw, const std::string& qcow2);

// Creates `path` at `size_bytes`, every byte written (a seeded non-zero pattern), fsynced.
// Throws std::runtime_error naming the path and the errno text.
Backing CreateFilledBacking(const std::string& path, uint64_t size_bytes);

// Checks a user-named file or block device: it must exist; a regular file with holes
// is refused for read jobs (`reads` true) because holes never reach the device.
Backing UseExistingBacking(const std::string& path, bool reads);

// True when the regular file at fd has a hole before its end (SEEK_HOLE).
bool FileHasHoles(int fd, uint64_t size);

}  // namespace storbed
