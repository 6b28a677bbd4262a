// The distribution a guest runs, from os-release(5): what a foreign image's manifest
// entry names besides the kernel. A storbed initramfs has no os-release: both fields stay "".
#pragma once

#include <filesystem>

#include "protocol.h"

namespace storbed::agent {

// PRETTY_NAME and VERSION_ID of `root`/etc/os-release, else `root`/usr/lib/os-release
// (the fallback os-release(5) names). Missing files or keys give "" fields; never throws.
OsRelease ReadOsRelease(const std::filesystem::path& root = "/");

// The same from the text of one os-release file (KEY=value lines, values optionally in
// single or double quotes, '#' comments).
OsRelease ParseOsRelease(const std::string& text);

}  // namespace storbed::agent
