// The nightly series of a history: per cell the runs' values of a metric night by night and
// the change points in them. `storbed history` prints them; `storbed report --history`
// draws them around one results directory.
#pragma once

#include <string>
#include <vector>

#include "history/change_points.h"
#include "history/history_store.h"
#include "reports/history_view.h"
#include "results/run_record.h"

namespace storbed {

// Per cell matching `cell_pattern` (a glob when it has glob characters, else a substring;
// "" for all), `metric` over `sessions` (one night each, in their order), with the change
// points `changes` finds.
std::vector<HistorySeries> NightlySeries(HistoryStore& store,
                                         const std::vector<HistorySession>& sessions,
                                         const std::string& metric,
                                         const std::string& cell_pattern = "",
                                         const ChangePointOptions& changes = {});

// The history of the results directory `dir` (its `records` loaded): the sessions of its
// scenario in `db` up to it (nights whose environment class changed marked), for its cells and the metrics iops,
// p50_us and p99_us, with `dir` itself marked as tonight (drawn last when it is not imported). Throws
// std::invalid_argument for a missing database, a file that is no history (or a newer
// one), or a directory without manifest.json.
HistoryView HistoryForReport(const std::string& db, const std::string& dir,
                             const std::vector<RunRecord>& records);

}  // namespace storbed
