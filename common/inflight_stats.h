// The figures behind a rung's uncertainty and its cap test: the distribution of an
// in-flight count, and a 95% interval for the mean of point samples.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ladder.h"

namespace storbed {

// From point samples of an in-flight count (rounded to whole requests); !available when
// there are none.
InflightDistribution DistributionOfSamples(const std::vector<double>& counts);
// From the time (any unit) spent at each count (index = count); exact. !available when
// it sums to 0.
InflightDistribution DistributionOfTime(const std::vector<double>& time_at_count);

struct MeanInterval {
  bool available = false;  // false with fewer than two samples
  double mean = 0;
  double half_width = 0;   // 95%
  uint64_t samples = 0;
  std::string basis;       // "20 point samples, batch means (5 batches)"
};

// The mean of `samples` and its 95% interval. Successive samples of a queue are
// correlated, so the interval comes from the means of up to 10 consecutive batches
// (Student t on the batch means), which widens it where the samples move slowly.
MeanInterval MeanInterval95(const std::vector<double>& samples);

}  // namespace storbed
