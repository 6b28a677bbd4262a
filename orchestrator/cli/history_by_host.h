// `storbed history DB --by-host`: per scenario and cell, every host's nightly series side by
// side on the lab's night axis (a night is a UTC date), each host's change points, and
// whose change each is: the suite's (every host the same night: QEMU, kernel, storbed) or
// one host's (history/lab_series.h, history/host_changes.h).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "history/lab_series.h"

namespace storbed {

// One scenario's cells as JSON: "scenario", "metric", "cells" (each "cell", "nights" (the
// dates), "hosts" (each "host", "fingerprint_class", "medians" per night, null where it
// did not run, "change_points") and "changes" (each "scope": suite, host or some hosts)).
nlohmann::json LabSeriesJson(const std::string& scenario, const std::string& metric,
                             const std::vector<LabCell>& cells);

// The JSON above as text: a table of medians a row per night, a column per host, then the
// changes in words.
std::string RenderLabSeries(const nlohmann::json& series);

}  // namespace storbed
