// The sections of the HTML report, one file each (html_section_<name>.cc); html_report.cc
// lists them in page order. Each returns its body as markup, every text escaped, and says
// in a sentence when it has nothing to show rather than leaving a gap.
#pragma once

#include <string>

#include "reports/compare.h"
#include "reports/history_view.h"
#include "reports/report_formats.h"

namespace storbed {

// manifest.json: when and what ran, the environment fingerprint, and per guest machine
// its kernel, accelerator, QEMU and agent; a sentence when there is no manifest.
std::string EnvironmentSectionHtml(const ReportInput& input);

// The results table (BuildTable): medians with their 95% CI and CV where runs repeat.
std::string TableSectionHtml(const ReportInput& input);

// A bar chart of average depth per layer for each ladder (PairLadders), guest beside its
// bare-metal twin, with the largest depth loss and the latency each layer adds.
std::string LaddersSectionHtml(const ReportInput& input);

// Per traced run (job.trace): each segment's CDF, the waterfalls of the median IO, the p99
// IO and the slowest 1%, the segments' figures and each layer's depth from the IOs against
// the counters; a sentence when no run was traced.
std::string TracesSectionHtml(const ReportInput& input);

// One chart per run with a timelines file: in flight, IOPS, request size and host device
// depth over the IO phase, stacked on one time axis.
std::string TimelinesSectionHtml(const ReportInput& input);

// Latency CDFs, one chart per job with a curve per cell (repeats' histograms merged), and
// the cells' percentiles from the merged histograms.
std::string LatencySectionHtml(const ReportInput& input);

// The verdicts of CAND (this directory) against BASE: a whisker chart per cell (ratio
// with its 95% CI around 1.0 and the noise band), the figures, the per-metric summary and
// the environment gate.
std::string CompareSectionHtml(const CompareReport& report);

// Per cell, its metrics night by night from the history (sparkline-sized charts with the
// change points marked) and each change point in words.
std::string HistorySectionHtml(const HistoryView& view);

}  // namespace storbed
