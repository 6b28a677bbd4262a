// `storbed image list` and `storbed image gc`: see and bound the guest image cache.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

namespace storbed {

// Adds both under `image_cmd`; `default_cache` is where runs cache images by default. The exit
// code is stored in *exit_code (-1 while neither ran).
void AddImageCacheCommands(CLI::App& image_cmd, const std::string& default_cache, int* exit_code);

}  // namespace storbed
