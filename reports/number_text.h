// Numbers as the reports print them: one formatting for the compare text, the HTML and
// Markdown reports and the history.
#pragma once

#include <optional>
#include <string>

namespace storbed {

// `v` through printf `format` ("%.4g" by default); "-" when there is no value.
std::string FormatNumber(const std::optional<double>& v, const char* format = "%.4g");

// A trace figure (microseconds, percents, milliseconds): one decimal unless told.
std::string TraceFigure(double v, const char* format = "%.1f");

// 0.021 -> "2.1%".
std::string FormatPercent(double fraction);

}  // namespace storbed
