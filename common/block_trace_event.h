// One event of the block layer's tracepoints (block:block_bio_queue, block_getrq,
// block_rq_insert, block_rq_issue, block_rq_complete) as tracefs prints it in its text
// trace. Both kernels storbed meets are read: 6.1 (the guest's)
//   "dd-117 [000] ..... 3.978475: block_rq_insert: 254,0 RS 4096 () 808 + 8 [dd]"
// and 6.18 (this host's), which prints the IO priority after the length
//   "... block_rq_issue: 253,0 R 4096 () 808 + 8 none,0,0 [fio]".
// The text trace gives microseconds; the trace clock is whatever the session set ("mono":
// CLOCK_MONOTONIC, the agent's engines' clock; "local": each CPU's own, mapped onto
// CLOCK_MONOTONIC by markers, trace_clock_map.h), so each event keeps the CPU it fired on.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "error.h"

namespace storbed {

enum class BlockEventKind { BioQueue, GetRq, RqInsert, RqIssue, RqComplete };
inline constexpr int kBlockEventKinds = 5;
// "block_bio_queue", ... : the tracepoint's name under events/block/.
const char* TracepointName(BlockEventKind kind);

struct BlockEvent {
  BlockEventKind kind = BlockEventKind::RqIssue;
  uint64_t time_ns = 0;  // the trace clock, to the microsecond the text shows
  int cpu = -1;          // the CPU whose buffer holds it ("[001]")
  uint32_t major = 0, minor = 0;
  uint64_t sector = 0;   // 512-byte sectors of the whole disk
  uint32_t sectors = 0;  // 0 for a request that carries no data (a flush)
  bool write = false;    // rwbs holds 'W' (else a read: 'R'; discards are not data IO)
  bool data = false;     // a read or a write with sectors (not a flush, discard or none)
  int error = 0;         // block_rq_complete's error
};

// A block event line that does not parse: a trace cut in the middle of a line, or a kernel
// that prints these events differently. Carries the line.
class BlockTraceParseError : public Error {
 public:
  explicit BlockTraceParseError(const std::string& line);
};

// The event a trace line holds; nullopt for a line that is no block event of the five
// (comments, blank lines, other events). Throws BlockTraceParseError for one of the five
// that does not parse.
std::optional<BlockEvent> ParseBlockEventLine(std::string_view line);

// A line of trace_marker text ("tracing_mark_write: storbed-sync 12").
struct TraceMarker {
  uint64_t time_ns = 0;
  int cpu = -1;
  std::string text;  // what was written, without the trailing newline
};
// The marker a trace line holds; nullopt for any other line or one that does not parse.
std::optional<TraceMarker> ParseTraceMarkerLine(std::string_view line);

// The kernel's dev_t of MAJOR:MINOR as the tracepoints store it (major << 20 | minor): what
// a tracefs filter on the "dev" field compares with.
inline uint64_t KernelDev(uint32_t major, uint32_t minor) {
  return (uint64_t(major) << 20) | minor;
}

}  // namespace storbed
