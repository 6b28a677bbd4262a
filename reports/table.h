// The terminal table: one row per run (job x target), with throughput, latency,
// request size, average depth where it was measured, and the accelerator.
#pragma once

#include <string>
#include <vector>

#include "results/run_record.h"

namespace storbed {

// The table as data, for every renderer that lays it out (text, HTML, markdown).
struct ReportTable {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  size_t first_numeric = 0, last_numeric = 0;  // the columns of measured figures
  std::string legend;  // how to read an aggregated table; "" for one row per run
  std::vector<std::string> notes;  // what makes figures less trustworthy, sorted
  std::string footnote;            // where req KiB and avg QD come from
};

// Warm-ups left out; rows grouped by job, then target in run order. When a combination was
// repeated, one row per cell (n, median with its 95% CI, CV) unless `per_repeat`. Notes
// flag TCG, failed runs, agent warnings.
ReportTable BuildTable(const std::vector<RunRecord>& records, bool per_repeat = false);

// BuildTable as aligned text, the legend and the notes below it.
std::string RenderTable(const std::vector<RunRecord>& records, bool per_repeat = false);

// Columns padded to their widest cell; columns first_numeric..last_numeric right-aligned.
std::string AlignedTable(const std::vector<std::string>& header,
                         const std::vector<std::vector<std::string>>& rows, size_t first_numeric,
                         size_t last_numeric);

}  // namespace storbed
