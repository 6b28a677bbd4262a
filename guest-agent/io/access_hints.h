// Access-pattern hints to the kernel: posix_fadvise on a file range (the mmap engine
// gives its windows the madvise flags itself).
#pragma once

#include <cstdint>

#include "job.h"

namespace storbed {

// posix_fadvise(fd, offset, len, ...) with NORMAL (for None: the kernel default, so it also
// undoes an earlier hint), SEQUENTIAL, RANDOM or WILLNEED; len 0 = to the end of the file.
// Throws std::runtime_error naming the fd, range, advice and errno text.
void ApplyFadvise(int fd, uint64_t offset, uint64_t len, AccessHint hint);

// The POSIX_FADV_* value for a hint (None -> NORMAL).
int FadviseFlag(AccessHint hint);

}  // namespace storbed
