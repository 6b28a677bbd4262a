// The figures `storbed compare` looks at, one row each: where the value comes from in a
// run record, which way is better, and in which family it is judged. Primary (the exit
// code's family, corrected together over cells): IOPS, p50 and p99 latency. Secondary
// (their own family, shown, never the exit code): each ladder rung's latency and the
// guest/bare-metal ratio of IOPS. Shown side by side, never judged: MiB/s (at a cell's
// fixed block size the same test as IOPS, so judging both would count one change twice),
// request size and queue depths.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "judging/verdict.h"
#include "results/run_record.h"

namespace storbed {

enum class MetricRole { Primary, Secondary, Shown };
std::string ToString(MetricRole r);  // "primary", "secondary", "shown"

std::string ToString(Better d);  // "higher", "lower", "none"
// For charts and tables: "higher is better", "lower is better", "no better direction".
std::string BetterPhrase(Better d);

struct CompareMetric {
  std::string name;  // "iops", "p99_us", "depth L2 virtqueue"
  Better direction;
  MetricRole role;
  // The run's value, or nullopt when the run did not measure it.
  std::function<std::optional<double>(const RunRecord&)> value;
};

// The job-level metrics, then per ladder rung the records carry its depth (no direction)
// and its mean latency (lower is better).
std::vector<CompareMetric> CompareMetrics(const std::vector<RunRecord>& records);

// Per cell (CellOf), `m`'s values in the measured runs of `records` (ok, with a result),
// as the history stores them.
std::map<std::string, std::vector<double>> ValuesByCell(const std::vector<RunRecord>& records,
                                                        const CompareMetric& m);

// The guest/bare-metal ratio of IOPS (one sample per repeat), judged beside the rest.
inline constexpr const char* kGuestOverBareMetric = "iops guest/bare-metal";

// The direction of a metric by name; None for depths and names it does not know.
Better DirectionOf(const std::string& metric);

// The role of a metric by name; Shown for names it does not know.
MetricRole RoleOf(const std::string& metric);

}  // namespace storbed
