// What the lab page shows (`storbed report --history DB --lab --html FILE`): per scenario,
// every host's nightly series per cell and metric, the change points with whose they are,
// and tonight's gate per host. Plain data, filled by the history module, so the renderer
// never opens a database.
#pragma once

#include <string>
#include <vector>

#include "reports/history_view.h"

namespace storbed {

struct LabHostSeries {
  std::string host;
  HistorySeries series;  // the host's own nights, its change points marked
};

struct LabCellView {
  std::string cell, metric;
  std::vector<LabHostSeries> hosts;  // by host name
  std::vector<std::string> changes;  // in words, whose each is (suite, host)
};

// Tonight's gate of one host: its latest night against the baseline nights of its class.
struct LabGateRow {
  std::string host, fingerprint_class, session, started_at;
  size_t baseline_nights = 0, other_class = 0;
  std::string verdict;  // pass, worse, cannot judge, not comparable, no baseline
  std::string detail;   // the worse rows, the differing items, or why there is no baseline
};

struct LabScenarioView {
  std::string scenario;
  std::string gate_rule;  // "--baseline last:7 of each host's class, alpha 0.01, guard 10%"
  std::vector<LabGateRow> gates;
  std::vector<LabCellView> cells;  // cells together, iops then p50_us then p99_us
};

struct LabView {
  std::string db;
  std::vector<LabScenarioView> scenarios;
};

}  // namespace storbed
