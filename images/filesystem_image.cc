#include "images/filesystem_image.h"
#include "images/run_tool.h"

#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace storbed {
namespace {

namespace fs = std::filesystem;

// Removes the staging copy and protofile on every path out.
struct RemoveOnExit {
  std::vector<fs::path> paths;
  ~RemoveOnExit() {
    std::error_code ec;
    for (const auto& p : paths) fs::remove_all(p, ec);
  }
};

std::string Join(const std::vector<std::string>& argv) {
  std::string s;
  for (const auto& a : argv) s += (s.empty() ? "" : " ") + a;
  return s;
}

}  // namespace

uint64_t MinimumImageBytes(const std::string& type, uint64_t file_bytes) {
  // Journal, inode tables and allocation groups; generous so mkfs never runs out.
  const uint64_t overhead = type == "xfs" ? (64ull << 20) : (16ull << 20) + file_bytes / 16;
  const uint64_t floor = type == "xfs" ? (300ull << 20) : (8ull << 20);
  return std::max(floor, file_bytes + overhead);
}

FilesystemImage CreateFilesystemImage(const FilesystemImageRequest& r) {
  if (r.type != "ext4" && r.type != "xfs")
    throw std::runtime_error("filesystem: \"" + r.type + "\" is not supported; allowed: ext4, xfs");
  if (r.file.empty() || r.file[0] == '/' || r.file.find("..") != std::string::npos)
    throw std::runtime_error("filesystem file: \"" + r.file +
                             "\" must be a relative path without \"..\"");
  if (r.type == "xfs" && r.file.find('/') != std::string::npos)
    throw std::runtime_error("filesystem file: \"" + r.file +
                             "\": with xfs the test file must sit in the root directory");
  const uint64_t need = MinimumImageBytes(r.type, r.file_bytes);
  if (r.image_bytes < need)
    throw std::runtime_error("filesystem size: " + std::to_string(r.image_bytes >> 20) +
                             " MiB is too small for a " + std::to_string(r.file_bytes >> 20) +
                             " MiB file on " + r.type + "; need at least " +
                             std::to_string(need >> 20) + " MiB");
  const fs::path image(r.image_path);
  const fs::path staging = image.string() + ".staging";
  const fs::path proto = staging.string() + ".proto";
  RemoveOnExit cleanup{{staging, proto}};
  fs::remove_all(staging);
  fs::create_directories(staging / fs::path(r.file).parent_path());
  r.fill((staging / r.file).string(), r.file_bytes);
  {  // the image file, sized; mkfs writes its metadata, the data comes from the copy
    std::ofstream(image, std::ios::trunc | std::ios::binary);
    fs::resize_file(image, r.image_bytes);
  }
  std::vector<std::string> argv;
  if (r.type == "ext4") {
    // -d copies the staging tree in; root_owner keeps the files root's in the guest.
    argv = {"mkfs.ext4", "-q", "-F", "-E", "root_owner=0:0", "-d", staging.string(),
            image.string()};
    RunTool(argv, "apt-get install e2fsprogs");
  } else {
    // A protofile: boot image, blocks/inodes, root dir mode, then one regular file
    // ("-" type, mode 644, uid 0, gid 0, source path) and "$" ends the directory.
    std::ofstream(proto) << "/dev/null\n0 0\nd--755 0 0\n"
                         << r.file << " ---644 0 0 " << (staging / r.file).string() << "\n$\n";
    argv = {"mkfs.xfs", "-q", "-f", "-p", proto.string(), image.string()};
    RunTool(argv, "apt-get install xfsprogs");
  }
  return FilesystemImage{.path = image.string(),
                         .type = r.type,
                         .file = r.file,
                         .image_bytes = r.image_bytes,
                         .file_bytes = r.file_bytes,
                         .mkfs_command = Join(argv)};
}

}  // namespace storbed
