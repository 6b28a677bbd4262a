// Writes a "newc" (SVR4, magic 070701) cpio archive: the only format the kernel's initramfs
// unpacker reads. Output is reproducible: mtime, uid and gid are 0 and inode numbers are
// given out in entry order, so the same entries always give the same bytes.
#pragma once

#include <cstdint>
#include <ostream>
#include <set>
#include <string>
#include <string_view>

namespace storbed {

class CpioWriter {
 public:
  explicit CpioWriter(std::ostream& out);

  // `path` is the in-archive path; a leading '/' is dropped ("/init" and "init" are one entry).
  // Every parent directory must have been added first, because the kernel's unpacker does
  // not create missing parents. Throws ImageError for a bad, duplicate or orphaned path.
  // `mode` holds the permission bits only (e.g. 0755); the file type comes from the call.
  void AddDirectory(std::string_view path, uint32_t mode = 0755);
  void AddFile(std::string_view path, std::string_view data, uint32_t mode = 0644);
  void AddCharDevice(std::string_view path, uint32_t major, uint32_t minor, uint32_t mode);
  void AddSymlink(std::string_view path, std::string_view target);

  // Writes the TRAILER!!! entry. No entries may follow. Throws ImageError if the stream failed.
  void Finish();

  uint64_t bytes_written() const { return offset_; }

 private:
  struct Header {
    uint32_t mode = 0;
    uint32_t nlink = 1;
    uint32_t rdev_major = 0;
    uint32_t rdev_minor = 0;
  };
  std::string CheckPath(std::string_view path);
  void WriteEntry(const std::string& name, const Header& h, std::string_view data);
  void Write(std::string_view bytes);
  void PadTo4();

  std::ostream& out_;
  uint64_t offset_ = 0;
  uint32_t next_inode_ = 1;
  bool finished_ = false;
  std::set<std::string, std::less<>> names_;
  std::set<std::string, std::less<>> directories_;
};

}  // namespace storbed
