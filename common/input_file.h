// Reading a file the user named (scenario, fio job file, inventory, agent job file,
// results.json): it must be a regular file of at most a stated size, so /dev/zero cannot
// fill memory and a FIFO cannot hang the reader.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

#include "error.h"

namespace storbed {

class InputFileError : public Error {
 public:
  explicit InputFileError(const std::string& what) : Error(ErrorKind::BadInput, what) {}
};

// Input files are small; this is far above any real one.
inline constexpr uint64_t kMaxInputFileBytes = 16ull << 20;

// The whole of `path`. Throws InputFileError "PATH: the WHAT <reason>" when it is missing,
// not a regular file (a FIFO, a device, a directory) or larger than `max_bytes`.
std::string ReadInputFile(const std::string& path, const std::string& what,
                          uint64_t max_bytes = kMaxInputFileBytes);

// "a FIFO", "a character device", "a directory", ... for an st_mode.
std::string FileKindName(unsigned mode);

}  // namespace storbed
