#include "reports/trace_cost.h"

#include <algorithm>
#include <cstdio>

#include "analysis/run_stats.h"
#include "reports/cells.h"

namespace storbed {
namespace {

bool Counts(const RunRecord& r) { return r.status == RunStatus::Ok && r.result; }

}  // namespace

std::string TraceCostLine(const RunRecord& traced, const std::vector<RunRecord>& records) {
  if (!traced.io_trace || !Counts(traced)) return "";
  const std::string cell = CellOf(traced, "job.trace");
  std::vector<double> with, without;
  for (const RunRecord& r : records)
    if (Counts(r) && CellOf(r, "job.trace") == cell) {
      if (!r.job.trace) without.push_back(r.result->iops);
      else if (r.job.trace_detail == traced.job.trace_detail) with.push_back(r.result->iops);
    }
  if (without.empty() || with.empty() || Median(without) <= 0) return "";
  char text[320];
  std::snprintf(text, sizeof text,
                "tracing's cost measured in this run: traced / untraced IOPS %.3f (medians "
                "%.0f and %.0f IOPS of %zu traced and %zu untraced runs of this cell; "
                "storbed compare DIR --by job.trace pairs interleaved rounds and gives its "
                "interval)",
                Median(with) / Median(without), Median(with), Median(without), with.size(),
                without.size());
  return text;
}

}  // namespace storbed
