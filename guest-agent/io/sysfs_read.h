// Reading the small text files of sysfs and procfs (one value per file), for the agent and
// its IO library alike.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace storbed {

// `text` without leading and trailing whitespace (sysfs values end in '\n', NVMe
// model and serial strings are space padded).
std::string Trim(std::string_view text);

// The file's trimmed contents; nullopt when it does not exist or cannot be read.
std::optional<std::string> ReadTrimmed(const std::filesystem::path& path);

// The file's contents as an unsigned decimal; nullopt when unreadable or not a number.
std::optional<uint64_t> ReadUint(const std::filesystem::path& path);

}  // namespace storbed
