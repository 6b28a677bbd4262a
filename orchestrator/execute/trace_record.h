// job.trace, the last step on the host: the joined paths of a run (tracing/io_path.h) become
// its record's io_trace figures, and the IOs themselves go beside the results in
// traces/<run_id>.ios.tsv.zst (tracing/io_path_file.h). Used by guest and bare-metal runs.
#pragma once

#include <string>
#include <vector>

#include "execute/run_context.h"
#include "results/run_record.h"
#include "tracing/io_path.h"
#include "tracing/io_path_figures.h"

namespace storbed {

// What tracing cost where it was measured side by side (bench/trace_overhead.sh).
inline constexpr const char* kTraceOverheadNote =
    "tracing costs IOPS: measured side by side, interleaved, by bench/trace_overhead.sh "
    "(docs/tracing.md); the trace's own figures are those of the traced run";

// Computes the figures (record.ladder, if set, is the counters' side), writes the file and
// sets record.io_trace. A file that cannot be written is a warning in the figures.
// `warnings` (cut-short traces, untraced layers) go into the figures.
void StoreIoTrace(RunContext& ctx, RunRecord& record, const PathJoin& join, FigureInputs inputs,
                  const std::vector<std::string>& warnings);

// Bare metal: the standalone agent's --trace-out file (chunk lines) read back. Throws
// IoTraceChunkError or std::runtime_error naming the file when it is cut or unreadable.
std::vector<AgentTracedIo> ReadAgentTraceFile(const std::string& path);

// Bare metal: the agent's IOs are the whole path (its block layer is the loop device's).
void StoreBareMetalTrace(RunContext& ctx, RunRecord& record, std::vector<AgentTracedIo> ios);

}  // namespace storbed
