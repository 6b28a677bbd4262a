#include "system_info.h"

#include <errno.h>
#include <sys/utsname.h>
#include <time.h>

#include "errors.h"

namespace storbed::agent {

std::string KernelRelease() {
  struct utsname names {};
  if (::uname(&names) != 0) throw SystemError("uname failed", errno);
  return names.release;
}

uint64_t MonotonicNs() {
  struct timespec now {};
  ::clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<uint64_t>(now.tv_sec) * 1'000'000'000ull + static_cast<uint64_t>(now.tv_nsec);
}

double UptimeSeconds() {
  struct timespec now {};
  ::clock_gettime(CLOCK_BOOTTIME, &now);
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9;
}

}  // namespace storbed::agent
