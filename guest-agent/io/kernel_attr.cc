#include "kernel_attr.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "unique_fd.h"

namespace storbed {

std::optional<std::string> WriteKernelAttr(const std::string& path, const std::string& value) {
  UniqueFd fd(open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC));
  if (!fd.valid()) return std::string("open: ") + std::strerror(errno);
  if (write(fd.get(), value.data(), value.size()) != ssize_t(value.size()))
    return std::string("write: ") + std::strerror(errno);
  return std::nullopt;
}

}  // namespace storbed
