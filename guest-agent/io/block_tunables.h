// Guest block-queue settings for a job's target disk: /sys/block/<disk>/queue/
// read_ahead_kb, scheduler, nr_requests and max_sectors_kb, written then read back.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "job.h"

namespace storbed {

// Writes the fields of `wanted` that are set (>= 0 / non-empty) to the queue of
// `device_name` ("vda"; a partition such as "vda1" uses its parent disk's queue), then
// reads all four back and returns them (scheduler = the [bracketed] one; -1 / "" for an
// attribute that cannot be read, with a warning). Throws JobError naming the file, the
// value and the errno text when a write fails, or when max_sectors_kb exceeds
// max_hw_sectors_kb (naming both). A refused nr_requests (some schedulers cap it) is a
// warning: the read-back shows what the queue kept.
BlockTunables ApplyBlockTunables(const std::string& device_name, const BlockTunables& wanted,
                                 const std::string& sysfs_root = "/sys",
                                 std::vector<std::string>* warnings = nullptr);

// The active scheduler in a queue/scheduler file's text: "mq-deadline" from
// "none [mq-deadline] kyber\n"; the trimmed text when nothing is bracketed.
std::string ActiveScheduler(const std::string& text);

// <sysfs_root>/block/<disk>/queue for a disk or a partition of one; nullopt when neither
// exists.
std::optional<std::string> QueueDir(const std::string& device_name,
                                    const std::string& sysfs_root = "/sys");

}  // namespace storbed
