#include "images/cpio_writer.h"

#include <sys/stat.h>

#include <cstdio>

#include "images/image_error.h"

namespace storbed {
namespace {

constexpr std::string_view kMagic = "070701";
constexpr std::string_view kTrailer = "TRAILER!!!";

[[noreturn]] void Reject(std::string_view path, const std::string& reason) {
  throw ImageError(std::string(path),
                   "cannot add \"" + std::string(path) + "\" to the cpio archive: " + reason);
}

}  // namespace

CpioWriter::CpioWriter(std::ostream& out) : out_(out) {}

std::string CpioWriter::CheckPath(std::string_view path) {
  if (finished_) Reject(path, "the archive is already finished");
  std::string_view name = path;
  while (name.starts_with('/')) name.remove_prefix(1);
  if (name.empty()) Reject(path, "empty path");
  if (name.ends_with('/')) Reject(path, "trailing '/'");
  // Components must be plain names: "." and ".." would let an entry land outside its parent
  // and "a//b" would dodge the duplicate check.
  size_t start = 0;
  while (start <= name.size()) {
    size_t end = name.find('/', start);
    if (end == std::string_view::npos) end = name.size();
    std::string_view part = name.substr(start, end - start);
    if (part.empty() || part == "." || part == "..") Reject(path, "bad path component");
    start = end + 1;
  }
  if (name.find('\0') != std::string_view::npos) Reject(path, "NUL in path");
  if (names_.count(name)) Reject(path, "already in the archive");
  size_t slash = name.rfind('/');
  if (slash != std::string_view::npos && !directories_.count(name.substr(0, slash))) {
    Reject(path,
           "parent directory \"" + std::string(name.substr(0, slash)) + "\" was not added first");
  }
  return std::string(name);
}

void CpioWriter::Write(std::string_view bytes) {
  out_.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  offset_ += bytes.size();
}

void CpioWriter::PadTo4() {
  static constexpr char kZeros[4] = {};
  Write(std::string_view(kZeros, (4 - offset_ % 4) % 4));
}

void CpioWriter::WriteEntry(const std::string& name, const Header& h, std::string_view data) {
  uint32_t inode = (name == kTrailer) ? 0 : next_inode_++;
  // newc: magic then 13 fields of 8 hex digits: ino mode uid gid nlink mtime filesize
  // devmajor devminor rdevmajor rdevminor namesize check. namesize counts the NUL.
  char header[6 + 13 * 8 + 1];
  std::snprintf(header, sizeof header, "%s%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X",
                kMagic.data(), inode, h.mode, 0u, 0u, h.nlink, 0u,
                static_cast<uint32_t>(data.size()), 0u, 0u, h.rdev_major, h.rdev_minor,
                static_cast<uint32_t>(name.size() + 1), 0u);
  Write(std::string_view(header, sizeof header - 1));
  Write(std::string_view(name.c_str(), name.size() + 1));
  PadTo4();  // header + name end on a 4-byte boundary
  Write(data);
  PadTo4();
}

void CpioWriter::AddDirectory(std::string_view path, uint32_t mode) {
  std::string name = CheckPath(path);
  // nlink 2 as for an empty directory; the kernel ignores it, cpio -t prints it.
  WriteEntry(name, Header{.mode = S_IFDIR | (mode & 07777), .nlink = 2}, "");
  names_.insert(name);
  directories_.insert(name);
}

void CpioWriter::AddFile(std::string_view path, std::string_view data, uint32_t mode) {
  std::string name = CheckPath(path);
  if (data.size() > UINT32_MAX) Reject(path, "newc cannot hold a file over 4 GiB");
  WriteEntry(name, Header{.mode = S_IFREG | (mode & 07777)}, data);
  names_.insert(name);
}

void CpioWriter::AddCharDevice(std::string_view path, uint32_t major, uint32_t minor,
                               uint32_t mode) {
  std::string name = CheckPath(path);
  WriteEntry(
      name, Header{.mode = S_IFCHR | (mode & 07777), .rdev_major = major, .rdev_minor = minor}, "");
  names_.insert(name);
}

void CpioWriter::AddSymlink(std::string_view path, std::string_view target) {
  std::string name = CheckPath(path);
  if (target.empty()) Reject(path, "empty symlink target");
  // A symlink's data is its target, without a NUL.
  WriteEntry(name, Header{.mode = S_IFLNK | 0777}, target);
  names_.insert(name);
}

void CpioWriter::Finish() {
  if (finished_) return;
  WriteEntry(std::string(kTrailer), Header{.mode = 0}, "");
  finished_ = true;
  out_.flush();
  if (!out_) throw ImageError("", "error writing the cpio archive (disk full?)");
}

}  // namespace storbed
