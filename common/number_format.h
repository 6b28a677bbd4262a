// One number as text through printf, in one place: the reports, the ladder, the samplers'
// notes and the progress line all format numbers through these.
#pragma once

#include <string>

namespace storbed {

// `v` through printf `format`, which takes exactly one double ("%.1f", "%8.3g").
std::string FormatDouble(double v, const char* format);

// `v` with `decimals` digits after the point ("%.*f").
std::string FormatFixed(double v, int decimals);

}  // namespace storbed
