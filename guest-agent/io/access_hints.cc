#include "access_hints.h"

#include <fcntl.h>

#include <cstring>
#include <stdexcept>
#include <string>

namespace storbed {

int FadviseFlag(AccessHint hint) {
  switch (hint) {
    case AccessHint::None: return POSIX_FADV_NORMAL;
    case AccessHint::Sequential: return POSIX_FADV_SEQUENTIAL;
    case AccessHint::Random: return POSIX_FADV_RANDOM;
    case AccessHint::WillNeed: return POSIX_FADV_WILLNEED;
  }
  throw std::invalid_argument("unknown access hint " + std::to_string(int(hint)));
}

void ApplyFadvise(int fd, uint64_t offset, uint64_t len, AccessHint hint) {
  // posix_fadvise returns the error number instead of setting errno.
  const int err = posix_fadvise(fd, off_t(offset), off_t(len), FadviseFlag(hint));
  if (err != 0)
    throw std::runtime_error("posix_fadvise(fd " + std::to_string(fd) + ", offset " +
                             std::to_string(offset) + ", len " + std::to_string(len) + ", " +
                             ToString(hint) +
                             ") failed: " + std::strerror(err));
}

}  // namespace storbed
