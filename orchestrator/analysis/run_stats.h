// Run-level summaries for the reports' tables: the median and the coefficient of variation
// of a cell's runs. Every test, interval and verdict is judging/'s.
#pragma once

#include <vector>

#include "median.h"

namespace storbed {

// Coefficient of variation (sample standard deviation / mean); 0 for fewer than 2
// values or a zero mean.
double CoefficientOfVariation(const std::vector<double>& x);

}  // namespace storbed
