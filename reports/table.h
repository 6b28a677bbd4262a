// The terminal table: one row per run (job x target), with throughput, latency,
// request size, average depth where it was measured, and the accelerator.
#pragma once

#include <string>
#include <vector>

#include "results/run_record.h"

namespace storbed {

// Rows grouped by job, then target in the order given. When a combination was repeated,
// one row per cell (n, median with its 95% CI, CV) unless `per_repeat`. Notes below the
// table flag what makes figures less trustworthy (TCG, failed runs, agent warnings).
std::string RenderTable(const std::vector<RunRecord>& records, bool per_repeat = false);

// Columns padded to their widest cell; columns first_numeric..last_numeric right-aligned.
std::string AlignedTable(const std::vector<std::string>& header,
                         const std::vector<std::vector<std::string>>& rows, size_t first_numeric,
                         size_t last_numeric);

}  // namespace storbed
