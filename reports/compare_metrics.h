// The figures `storbed compare` looks at, one row each: where the value comes from in a
// run record and which way is better. IOPS and MiB/s higher is better, latencies lower;
// request size and queue depths have no direction: shown side by side, never judged.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "results/run_record.h"

namespace storbed {

enum class Better { Higher, Lower, None };
std::string ToString(Better d);  // "higher", "lower", "none"
// For charts and tables: "higher is better", "lower is better", "no better direction".
std::string BetterPhrase(Better d);

struct CompareMetric {
  std::string name;  // "iops", "p99_us", "depth L2 virtqueue"
  Better direction;
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

}  // namespace storbed
