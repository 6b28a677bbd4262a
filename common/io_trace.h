// The agent's half of a traced job (job.trace): every IO the engines completed, with the
// times the traced block layer saw its requests, joined on the agent's clock
// (block_join.h). In a guest the host joins QEMU's and the host device's events to these
// (orchestrator/tracing/); on bare metal they are the whole path. The records travel in
// chunks (the protocol's trace_fetch, or the standalone agent's --trace-out file), a
// summary rides in the job's result.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "block_join.h"
#include "error.h"

namespace storbed {

struct AgentTracedIo {
  uint64_t offset = 0;  // bytes into the target
  uint32_t bytes = 0;
  bool write = false;
  // The agent's CLOCK_MONOTONIC: when the IO began to count in flight (its refill's first
  // submit call), just before the submit call that took it, and when the engine saw it
  // complete. Its latency is seen - submit.
  uint64_t queued_ns = 0, submit_ns = 0, seen_ns = 0;
  BlockTimes block;  // the traced block layer's, 0 where not seen
  JoinState state = JoinState::Missing;
  bool operator==(const AgentTracedIo& o) const;
};

// What the agent traced, in the job's result.
struct IoTraceSummary {
  std::string layer;  // "guest block layer", "host block layer"
  std::string disk;   // the traced whole disk ("vda", "loop3")
  uint32_t major = 0, minor = 0;
  uint64_t first_sector = 0;  // of the target on that disk (a partition's start)
  uint64_t ios = 0;           // IOs logged (the chunks hold these)
  uint64_t not_logged = 0;    // IOs completed beyond the log's cap
  uint64_t log_cap = 0;
  uint64_t joined = 0, missing = 0, ambiguous = 0;
  uint64_t events = 0, unmatched_events = 0, lost_events = 0;
  uint64_t buffer_kb_per_cpu = 0;
  uint64_t resolution_ns = 1000;  // the text trace's: microseconds
  // The block events' clock: "mono", or "local" put on CLOCK_MONOTONIC per CPU by markers
  // (tracefs_session.h), within trace_clock_fit_ns.
  std::string trace_clock = "mono";
  uint64_t trace_clock_fit_ns = 0;
  bool complete = true;           // false: events were lost or a line was cut
  std::string why_incomplete;
  bool operator==(const IoTraceSummary&) const = default;
};

void to_json(nlohmann::json& j, const IoTraceSummary& s);
void from_json(const nlohmann::json& j, IoTraceSummary& s);

// A chunk that does not parse (a cut file, a foreign writer): never read as fewer IOs.
class IoTraceChunkError : public Error {
 public:
  explicit IoTraceChunkError(const std::string& what) : Error(ErrorKind::Internal, what) {}
};

// IOs whose chunk stays under the protocol's 1 MiB line (about 120 bytes an IO).
inline constexpr size_t kTraceChunkIos = 4096;

// {"from": F, "total": T, "ios": [[offset, bytes, write, submit_ns, submit - queued,
// seen - submit, bio_queue, getrq, insert, issue, complete (each minus submit, -1 = not
// seen), requests, state, shared], ...]}: ios[from, from + count) of `ios`.
nlohmann::json TracedIoChunk(const std::vector<AgentTracedIo>& ios, size_t from, size_t count);

struct TracedIoChunkView {
  size_t from = 0, total = 0;
  std::vector<AgentTracedIo> ios;
};
// Throws IoTraceChunkError naming what is wrong.
TracedIoChunkView ParseTracedIoChunk(const nlohmann::json& chunk);

}  // namespace storbed
