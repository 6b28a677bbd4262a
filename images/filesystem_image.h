// Filesystem targets: a disk image holding an ext4 or xfs filesystem with the test file
// already laid out, made on the host without mounting anything (mkfs.ext4 -d copies a
// directory in; mkfs.xfs -p takes a protofile naming the source file). The guest mounts it.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

namespace storbed {

struct FilesystemImageRequest {
  std::string image_path;    // created (or replaced)
  std::string type;          // "ext4" or "xfs"
  uint64_t image_bytes = 0;  // the filesystem's size
  std::string file;          // path of the test file inside, relative ("storbed.dat")
  uint64_t file_bytes = 0;   // the test file's size; it is filled with data, not holes
  // Writes `bytes` of non-zero data to a new file (execute/backing's CreateFilledBacking);
  // the staging copy is removed once mkfs has copied it in.
  std::function<void(const std::string& path, uint64_t bytes)> fill;
};

struct FilesystemImage {
  std::string path, type, file;
  uint64_t image_bytes = 0, file_bytes = 0;
  std::string mkfs_command;  // the argv joined, for the manifest
};

// Throws std::runtime_error naming the field or the failing command and its output.
FilesystemImage CreateFilesystemImage(const FilesystemImageRequest& request);

// The smallest image that holds a `file_bytes` file with room for `type`'s metadata
// (xfs refuses images under 300 MiB).
uint64_t MinimumImageBytes(const std::string& type, uint64_t file_bytes);

}  // namespace storbed
