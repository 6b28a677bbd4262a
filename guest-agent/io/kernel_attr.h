// Writing one value to a kernel attribute file (sysfs, procfs).
#pragma once

#include <optional>
#include <string>

namespace storbed {

// One write(2) of the whole value: a sysfs store sees exactly one buffer. Returns the
// errno text on failure ("open: ..." or "write: ..."), nullopt on success.
std::optional<std::string> WriteKernelAttr(const std::string& path, const std::string& value);

}  // namespace storbed
