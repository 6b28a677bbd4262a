// QEMU's trace events as its "log" trace backend writes them (Debian's QEMU has no other):
// with `-msg timestamp=on`, one line per event
//   "6660@1796422153.457264:virtio_blk_handle_read vdev 0x5633d42c3430 req 0x5633d3362800 sector 816 nsectors 8"
// that is, thread id @ CLOCK_REALTIME seconds.microseconds : event name, then the event's
// arguments as "name value" pairs (every block and NVMe event storbed reads prints them so;
// qemu-system-x86_64 -trace help lists the events, hw/*/trace-events their formats).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "error.h"

namespace storbed {

struct QemuTraceEvent {
  uint64_t realtime_ns = 0;  // CLOCK_REALTIME to the microsecond
  uint32_t thread = 0;
  std::string name;
  std::map<std::string, std::string, std::less<>> args;  // "sector" -> "816", "blk" -> ""
  // The argument as a number (decimal, or hex with 0x); nullopt when absent or not one.
  std::optional<uint64_t> Number(std::string_view arg) const;
  std::string_view Text(std::string_view arg) const;  // "" when absent
};

// A line of the log that has a timestamp and an event name but does not parse beyond them
// (a line cut short): carries the line.
class QemuTraceParseError : public Error {
 public:
  explicit QemuTraceParseError(const std::string& line);
};

// The event a log line holds; nullopt for other lines (QEMU's own messages). Throws
// QemuTraceParseError for an event line cut short.
std::optional<QemuTraceEvent> ParseQemuTraceLine(std::string_view line);

struct QemuTraceRead {
  std::vector<QemuTraceEvent> events;  // those named in `wanted`, in the log's order
  uint64_t end_offset = 0;             // where the next read starts
  bool complete = true;                // false: a line did not parse (named)
  std::string why_incomplete;
  uint64_t other_lines = 0;  // lines that were no wanted event
};

// The log's events from byte `from` on whose names are in `wanted` (all when empty). A last
// line without its newline is left for the next read (QEMU may be writing it). Throws
// std::runtime_error when the file cannot be read.
QemuTraceRead ReadQemuTraceLog(const std::string& path, uint64_t from,
                               const std::vector<std::string>& wanted = {});

}  // namespace storbed
