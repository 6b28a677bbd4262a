#include "median.h"

#include <algorithm>
#include <stdexcept>

namespace storbed {

double Median(std::vector<double> x) {
  if (x.empty()) throw std::invalid_argument("median of no values");
  const size_t mid = x.size() / 2;
  std::nth_element(x.begin(), x.begin() + mid, x.end());
  if (x.size() % 2) return x[mid];
  const double upper = x[mid];
  return (upper + *std::max_element(x.begin(), x.begin() + mid)) / 2;
}

}  // namespace storbed
