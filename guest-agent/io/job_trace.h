// job.trace in the agent: a block trace of the target's disk around the IO phase, and the
// join of the engines' logged IOs (IoLog) to its events, on the agent's CLOCK_MONOTONIC.
// The result carries the summary; the joined IOs go to the host apart (trace_fetch, or the
// standalone agent's --trace-out file).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine.h"
#include "io_trace.h"
#include "job.h"
#include "target_device.h"
#include "tracefs_session.h"

namespace storbed {

// IOs a traced job logs at most, over all its threads (32 bytes each in the agent).
inline constexpr size_t kTraceLogCap = size_t{1} << 20;

// Why `spec` cannot be traced ("" when it can): buffered IO and mmap reach the block layer
// as page-cache traffic, not one request per IO; a file on a filesystem adds the
// filesystem's own requests and its mapping of offsets.
std::string WhyNotTraceable(const JobSpec& spec, bool target_is_block_device);

// The whole disk the tracepoints name for a target device (a partition's parent), and the
// target's first sector on it. Throws JobError when it cannot be found.
struct TracedDisk {
  std::string name;  // "vda"
  uint32_t major = 0, minor = 0;
  uint64_t first_sector = 0;
};
TracedDisk TracedDiskOf(const TargetDevice& dev, const SysfsReader& sys = RealSysfs());

// Starts a block trace (real: TracefsBlockTrace::Start).
using BlockTraceStarter =
    std::function<std::unique_ptr<BlockTrace>(const BlockTraceRequest& request)>;
BlockTraceStarter RealBlockTraceStarter(bool private_mount);

struct JobTraceOutcome {
  IoTraceSummary summary;
  std::vector<AgentTracedIo> ios;  // in submission order
};

// The threads' logs joined to `capture` (the events of `disk`), `layer` naming where the
// agent runs ("guest block layer", "host block layer").
JobTraceOutcome JoinJobTrace(const std::vector<const IoLog*>& logs,
                             const BlockTraceCapture& capture, const TracedDisk& disk,
                             const std::string& layer);

}  // namespace storbed
