#include "sysfs_read.h"

#include <charconv>

#include "file_read.h"

namespace storbed {

std::string Trim(std::string_view text) {
  constexpr std::string_view kSpace = " \t\r\n\v\f";
  const size_t first = text.find_first_not_of(kSpace);
  if (first == std::string_view::npos) return "";
  const size_t last = text.find_last_not_of(kSpace);
  return std::string(text.substr(first, last - first + 1));
}

std::optional<std::string> ReadTrimmed(const std::filesystem::path& path) {
  // A sysfs attribute whose show() fails makes the read fail after a good open: nullopt too.
  const std::optional<std::string> contents = TryReadFile(path);
  if (!contents) return std::nullopt;
  return Trim(*contents);
}

std::optional<uint64_t> ReadUint(const std::filesystem::path& path) {
  const std::optional<std::string> text = ReadTrimmed(path);
  if (!text || text->empty()) return std::nullopt;
  uint64_t value = 0;
  const auto [end, error] = std::from_chars(text->data(), text->data() + text->size(), value);
  if (error != std::errc() || end != text->data() + text->size()) return std::nullopt;
  return value;
}

}  // namespace storbed
