// The joined IOs of a traced run beside its results, zstd-compressed TSV (docs/tracing.md):
// a header line, then one row per IO: offset, bytes, write (0/1), joined (0/1), and the time
// of each point of the path in host CLOCK_MONOTONIC ns (0 = not seen), columns named after
// the points ("app_queued_ns", "app_submit_ns", "issued_ns", ...). `zstdcat FILE | head`
// reads it.
#pragma once

#include <cstdint>
#include <string>

#include "tracing/io_path.h"

namespace storbed {

// IOs a file holds at most; the rest are counted in the figures, not written.
inline constexpr uint64_t kIoPathFileCap = 1u << 20;

// Writes at most `cap` IOs of `join` to `path` (created 0600). Returns how many it wrote.
// Throws std::runtime_error naming the file and the reason.
uint64_t WriteIoPathFile(const std::string& path, const PathJoin& join, uint64_t cap);

// The column name of a point: "app submit" -> "app_submit_ns".
std::string PointColumn(PathPoint p);

}  // namespace storbed
