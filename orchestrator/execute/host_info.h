// Facts about the host that every manifest records.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "host_identity.h"  // UtcTimestamp, ThisHostName

namespace storbed {

// storbed version and git revision, host kernel release and machine, hostname, CPU model,
// cores and memory. Never throws: an unreadable fact is recorded as "unknown".
nlohmann::json DescribeHost();

// The first line of `path` ("" when unreadable).
std::string ReadFirstLine(const std::string& path);


}  // namespace storbed
