// This machine's name and the time as records write it, shared by the runner (manifests,
// owner markers), the libvirt backend (domain owner metadata) and cleanup.
#pragma once

#include <string>

namespace storbed {

// gethostname(), or "unknown".
std::string ThisHostName();

// Now in UTC, "2026-11-30T02:03:04Z".
std::string UtcTimestamp();

}  // namespace storbed
