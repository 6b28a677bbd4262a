// What in a foreign guest's own configuration sets its disks' queue tunables, so a result
// can say whether the scheduler and read-ahead it started with are the kernel's defaults or
// the distribution's (or an admin's) choice: udev rules and tuned's active profile.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "protocol.h"

namespace storbed::agent {

// The udev rules directories in udev's order of precedence: a file in an earlier one hides
// a file of the same name in a later one (udev(7)).
const std::vector<std::string>& UdevRulesDirs();

// Lines of the effective udev rules under `root` that assign ATTR{queue/scheduler},
// ATTR{queue/read_ahead_kb}, ATTR{bdi/read_ahead_kb} or ATTR{queue/nr_requests}, or run
// `blockdev --setra`. Files are read in udev's lexical order; unreadable ones are skipped.
std::vector<QueueRule> FindQueueRules(const std::filesystem::path& root = "/");

// The rules of one file's text (`file` is only copied into the results).
std::vector<QueueRule> QueueRulesIn(const std::string& file, const std::string& text);

// tuned's active profile (`root`/etc/tuned/active_profile), "" without tuned.
std::string ReadTunedProfile(const std::filesystem::path& root = "/");

}  // namespace storbed::agent
