// The text report's boot lines: per guest machine of a results directory, the time from
// QEMU start to the agent's hello and its parts, from manifest.json (docs/boot.md).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace storbed {

// "boot (s, QEMU start to agent hello)" and one line per machine with a `boot` entry; ""
// when no machine has one (bare metal only, or a manifest from before the breakdown).
std::string RenderBoots(const nlohmann::json& manifest);

// RenderBoots of dir/manifest.json; "" when the file is missing or not JSON (the table
// does not depend on it).
std::string RenderBootsOfDir(const std::string& dir);

}  // namespace storbed
