// The median of a set of values, for every part that summarises runs or nights.
#pragma once

#include <vector>

namespace storbed {

// The middle value, or the mean of the two middle values of an even count. Throws
// std::invalid_argument for no values.
double Median(std::vector<double> x);

}  // namespace storbed
