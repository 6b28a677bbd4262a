// The history chart: one cell's metric night by night, small enough for three side by side.
// Each run a grey dot, each night's median on a line, tonight ringed, a dashed line
// before each change point with its ratio and a dotted one ("env") where the environment
// changed, on axes with the nights and the metric's unit.
#pragma once

#include <string>

#include "reports/history_view.h"

namespace storbed {

// Width in px: three fit beside each other in the report's column.
inline constexpr double kHistoryChartWidth = 296;

// `unit` titles the y axis ("IOPS", "us"); `note` says which way is better.
std::string RenderHistoryChart(const HistorySeries& series, const std::string& unit,
                               const std::string& note);

}  // namespace storbed
