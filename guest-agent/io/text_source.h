// Reads of /proc and /sys text files for the samplers, behind an interface so the
// sampling logic is unit-tested with recorded fixture text. The real files are opened
// once and re-read with pread at offset 0 (procfs and sysfs regenerate the text on
// every read from offset 0), so a sample costs one syscall and no allocation.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace storbed {

class TextFile {
 public:
  virtual ~TextFile() = default;
  // The file's whole current text, valid until the next Read(); nullopt on a read
  // error (with error() saying why).
  virtual std::optional<std::string_view> Read() = 0;
  virtual const std::string& error() const = 0;
};

class TextSource {
 public:
  virtual ~TextSource() = default;
  // The opened file; nullptr with *error set when it cannot be opened.
  virtual std::unique_ptr<TextFile> Open(const std::string& path, std::string* error) const = 0;
  // Names of the entries of a directory (no "." and ".."); nullopt when unreadable.
  virtual std::optional<std::vector<std::string>> List(const std::string& dir) const = 0;
};

const TextSource& RealTextSource();

}  // namespace storbed
