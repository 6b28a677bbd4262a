// The per-IO block of a traced run in report.txt (docs/tracing.md): how many IOs joined and
// on which clock, the segments of the path as distributions (beside the bare-metal twin's),
// waterfalls of the median IO, the p99 IO and the slowest 1%, each layer's depth from the
// IOs against the counters, and what was not traced and why.
#pragma once

#include <string>

#include "results/run_record.h"

namespace storbed {

// "" when `run` has no io_trace. `twin`: the bare-metal run of the same cell, or null.
std::string RenderIoTrace(const RunRecord& run, const RunRecord* twin);

}  // namespace storbed
