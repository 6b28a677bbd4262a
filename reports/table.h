// The terminal table: one row per run (job x target), with throughput, latency,
// request size, average depth where it was measured, and the accelerator.
#pragma once

#include <string>
#include <vector>

#include "results/run_record.h"

namespace storbed {

// Rows grouped by job, then target in the order given. Notes below the table flag
// what makes figures less trustworthy (TCG, failed runs, agent warnings).
std::string RenderTable(const std::vector<RunRecord>& records);

}  // namespace storbed
