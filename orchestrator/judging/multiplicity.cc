#include "judging/multiplicity.h"

#include <algorithm>
#include <numeric>

namespace storbed {

std::vector<std::optional<double>> HolmAdjusted(const std::vector<std::optional<double>>& p) {
  std::vector<size_t> order;
  for (size_t i = 0; i < p.size(); ++i)
    if (p[i]) order.push_back(i);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return *p[a] < *p[b]; });
  const size_t m = order.size();
  std::vector<std::optional<double>> out(p.size());
  double running = 0;  // adjusted p-values never decrease along the step-down order
  for (size_t k = 0; k < m; ++k) {
    running = std::max(running, std::min(1.0, double(m - k) * *p[order[k]]));
    out[order[k]] = running;
  }
  return out;
}

}  // namespace storbed
