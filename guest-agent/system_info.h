// Facts about the running system that the hello reply reports.
#pragma once

#include <cstdint>
#include <string>

namespace storbed::agent {

// uname -r, e.g. "6.1.0-18-amd64". Throws SystemError when uname fails.
std::string KernelRelease();

// CLOCK_MONOTONIC now, in nanoseconds: lets the host line up agent and host timelines.
uint64_t MonotonicNs();

// CLOCK_BOOTTIME now, in seconds: the guest's uptime, counted from the kernel's clock start.
double UptimeSeconds();

}  // namespace storbed::agent
