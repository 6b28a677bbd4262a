// A lab's nightly series: one scenario's cells with every host's series side by side on one
// night axis (the UTC dates any host ran), each host's change points, and whose change each
// is: the suite's (every host, the same night) or one host's (host_changes.h).
// `storbed history --by-host` prints them; `storbed report --lab` draws them.
#pragma once

#include <string>
#include <vector>

#include "history/change_points.h"
#include "history/history_store.h"
#include "history/host_changes.h"
#include "reports/history_view.h"

namespace storbed {

struct HostSeries {
  std::string host;
  std::string fingerprint_class;  // of its latest night
  HistorySeries series;           // its own nights, with its change points
  std::vector<size_t> axis;       // for each of its nights, its index on the lab's axis
};

struct LabCell {
  std::string cell, metric;
  std::vector<std::string> nights;  // the lab's axis: UTC dates, in order
  std::vector<HostSeries> hosts;    // by host name; a host without the cell is left out
  std::vector<LabChange> changes;   // HostChange::night is on the lab's axis
};

// Per cell matching `cell_pattern` ("" all), `metric` of each host's `sessions` (one
// scenario's, in start order), change points found per host with `rule` and grouped with
// `grouping`.
std::vector<LabCell> LabSeries(HistoryStore& store, const std::vector<HistorySession>& sessions,
                               const std::string& metric, const std::string& cell_pattern = "",
                               const ChangePointOptions& rule = {},
                               const ChangeGrouping& grouping = {});

// The run values of `host`'s nights on each of the lab's `axis_nights` nights (one pass over
// its nights); none on a night it did not run, all of them on a night it ran twice.
std::vector<std::vector<double>> ValuesByNight(const HostSeries& host, size_t axis_nights);

// One lab change in words: "suite change at night 7 (2026-12-07) on all 3 hosts (lab1
// 0.700, ...): QEMU, kernel or storbed", "lab2's change at night 7 (...): ratio 0.700".
std::string DescribeLabChange(const LabCell& cell, const LabChange& change);

}  // namespace storbed
