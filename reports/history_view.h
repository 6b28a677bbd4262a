// What the HTML report shows of the nightly history (`storbed report --history DB`): per
// cell and metric the nights' values with their change points. Plain data, filled by the
// history module from SQLite, so the renderers never open a database.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace storbed {

struct HistoryNight {
  std::string session, started_at, revision;
  std::vector<double> values;  // the night's measured runs of the cell (its repeats)
  bool tonight = false;        // the results directory the report is about
  // Its environment class differs from the night before's (a new QEMU, kernel, argv...).
  bool environment_changed = false;
};

struct HistoryChange {
  size_t night = 0;  // index into the series' nights: the first night at the new level
  double before = 0, after = 0, ratio = 0, p = 1;
};

struct HistorySeries {
  std::string cell, metric;
  std::vector<HistoryNight> nights;  // every session in order, empty where the cell did not run
  std::vector<HistoryChange> changes;
};

struct HistoryView {
  std::string db, scenario;
  bool tonight_imported = false;  // false: tonight is drawn last without being in the db
  std::vector<HistorySeries> series;
};

}  // namespace storbed
