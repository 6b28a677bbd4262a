// The HTML report: one self-contained page (inline CSS and SVG, no scripts, nothing
// fetched) with the environment, the results table, depth ladders, timelines, latency
// CDFs and, given a BASE to compare with, the verdicts with their intervals.
#pragma once

#include <string>

#include "reports/report_formats.h"

namespace storbed {

// The page for `input`; with input.compare_base set, a compare section of input.dir
// (CAND) against it. Throws std::invalid_argument when that BASE cannot be read.
std::string RenderHtmlReport(const ReportInput& input);

}  // namespace storbed
