// What tracing cost, as a results directory measured it: a scenario that runs a cell both
// traced and untraced (job.trace [false, true], best interleaved) holds the figure itself,
// so the report prints it beside the trace rather than pointing elsewhere (docs/tracing.md).
#pragma once

#include <string>
#include <vector>

#include "results/run_record.h"

namespace storbed {

// "" when `traced` has no io_trace or no untraced ok run of its cell is in `records`; else
// one sentence: traced / untraced IOPS as the ratio of the two sides' medians, with how
// many runs each side had and where the paired interval comes from.
std::string TraceCostLine(const RunRecord& traced, const std::vector<RunRecord>& records);

}  // namespace storbed
