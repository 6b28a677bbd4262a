#include "reports/number_text.h"

#include <cstdio>

namespace storbed {

std::string FormatNumber(const std::optional<double>& v, const char* format) {
  if (!v) return "-";
  char buf[64];
  std::snprintf(buf, sizeof buf, format, *v);
  return buf;
}

std::string TraceFigure(double v, const char* format) { return FormatNumber(v, format); }

std::string FormatPercent(double fraction) { return FormatNumber(fraction * 100, "%.1f") + "%"; }

}  // namespace storbed
