#include "reports/number_text.h"

#include "number_format.h"

namespace storbed {

std::string FormatNumber(const std::optional<double>& v, const char* format) {
  if (!v) return "-";
  return FormatDouble(*v, format);
}

std::string TraceFigure(double v, const char* format) { return FormatNumber(v, format); }

std::string FormatPercent(double fraction) { return FormatNumber(fraction * 100, "%.1f") + "%"; }

}  // namespace storbed
