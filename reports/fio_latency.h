// Latency in fio's JSON shapes, from what a storbed run measured: the clat_ns/lat_ns
// objects (min, max, mean, stddev, N, percentile, and json+'s bins) and the job-level
// latency_ns/us/ms buckets. fio's percentiles and bins come from its own histogram; these
// come from the agent's (log-linear, buckets under 0.8% wide), each bucket standing at its
// middle; a percentile is one of the bins' keys, as in fio, clamped to the run's exact min
// and max as the agent clamps its own.
#pragma once

#include <nlohmann/json.hpp>

#include "result.h"

namespace storbed {

// fio's default percentile list (percentile_list), as its JSON keys spell them.
inline constexpr double kFioPercentiles[] = {1,  5,  10, 20, 30,   40,   50,    60,   70,
                                             80, 90, 95, 99, 99.5, 99.9, 99.95, 99.99};

// `x` rounded to a whole count for fio's integer fields: 0 for negative or NaN, the
// largest uint64 beyond it (a corrupt record must not make the conversion undefined).
uint64_t FioRound(double x);

// The bucket's key in json+ "bins" (ns): its middle, low + width / 2.
uint64_t FioBinKey(uint64_t low_ns, uint64_t width_ns);

// What fio writes for a latency nobody measured (an unused direction, slat): zeros, N 0.
nlohmann::ordered_json FioZeroLatency();

// {min, max, mean, stddev, N, percentile, bins} in ns. min, max, mean and N are the
// summary's (exact); stddev, percentile (clamped to min..max) and bins come from
// `histogram`. Without a
// histogram (results from before it) stddev is 0 and percentile and bins are left out.
nlohmann::ordered_json FioLatency(const LatencySummary& summary, const LatencyHistogram& histogram);

// The sample standard deviation (ns) of the histogram, each bucket at its key; 0 for fewer
// than two IOs.
double HistogramStddevNs(const LatencyHistogram& histogram);

// fio's "latency_ns", "latency_us" and "latency_ms" objects: the percent of all IOs in each
// of fio's ranges ("2" = [0, 2), "4" = [2, 4), ... in that unit; ms ends with ">=2000"),
// every key present, zeros for an empty histogram.
struct FioLatencyBuckets {
  nlohmann::ordered_json ns, us, ms;
};
FioLatencyBuckets FioLatencyBucketsOf(const LatencyHistogram& histogram);

}  // namespace storbed
