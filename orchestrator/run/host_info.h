// Facts about the host that every manifest records.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace storbed {

// storbed version and git revision, host kernel release and machine, hostname, CPU model,
// cores and memory. Never throws: an unreadable fact is recorded as "unknown".
nlohmann::json DescribeHost();

// The first line of `path` ("" when unreadable).
std::string ReadFirstLine(const std::string& path);

// Seconds since the epoch as an ISO 8601 UTC string.
std::string UtcTimestamp();

}  // namespace storbed
