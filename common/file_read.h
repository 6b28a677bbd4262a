// Reading a whole file the program itself chose (/proc, /sys, a results file it wrote, a
// binary it ships), in one place. Files a user named go through input_file.h instead, which
// also bounds their size and refuses FIFOs and devices.
#pragma once

#include <optional>
#include <string>

namespace storbed {

// The bytes of `path`, or nullopt when it cannot be opened or a read fails part way (a
// sysfs attribute whose show() fails opens fine and then fails the read). `*error`, when
// given, gets the errno of the failure (0 on success).
std::optional<std::string> TryReadFile(const std::string& path, int* error = nullptr);

// The bytes of `path`, or "" when it cannot be read: for sources where absence and emptiness
// mean the same to the caller (an optional /proc file, a log that may not exist yet).
std::string ReadFileOrEmpty(const std::string& path);

// The bytes of `path`. Throws storbed::Error (ErrorKind::Host) "cannot read PATH: <errno
// text>".
std::string ReadFileOrThrow(const std::string& path);

}  // namespace storbed
