// Runs a host tool (mkfs, qemu-img, genisoimage) from an argv, never through a shell.
#pragma once

#include <string>
#include <vector>

namespace storbed {

// Runs argv[0] (looked up in the sbin and bin directories) with the rest as arguments.
// Throws std::runtime_error with the command and its output when it fails, or naming
// `install_hint` ("apt-get install genisoimage") when the tool is not there.
void RunTool(const std::vector<std::string>& argv, const std::string& install_hint);

}  // namespace storbed
