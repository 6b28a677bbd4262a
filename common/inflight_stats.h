// The distribution of an in-flight count behind a rung's cap test, from point samples or
// from the time spent at each count. (The interval of a sampled mean is judging's:
// orchestrator/judging/mean_interval.h.)
#pragma once

#include <vector>

#include "ladder.h"

namespace storbed {

// From point samples of an in-flight count (rounded to whole requests); !available when
// there are none.
InflightDistribution DistributionOfSamples(const std::vector<double>& counts);
// From the time (any unit) spent at each count (index = count); exact. !available when
// it sums to 0.
InflightDistribution DistributionOfTime(const std::vector<double>& time_at_count);

}  // namespace storbed
