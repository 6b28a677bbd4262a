// Log-linear latency histogram in nanoseconds: values below 128 ns are exact, above
// that every power-of-two range is split into 64 linear buckets, so any recorded value
// is reported within 1/128 (< 0.8%) of itself. Fixed size, no allocation per sample.
#pragma once

#include <array>
#include <cstdint>

#include "result.h"

namespace storbed {

class Histogram {
 public:
  static constexpr int kSubBits = 6;                  // 64 sub-buckets per group
  static constexpr uint64_t kSub = 1u << kSubBits;
  static constexpr int kBuckets = int(2 * kSub + (63 - kSubBits) * kSub);

  void Record(uint64_t ns);
  // Adds every sample of `other` to this histogram.
  void Merge(const Histogram& other);

  uint64_t count() const { return count_; }
  uint64_t min_ns() const { return count_ ? min_ : 0; }
  uint64_t max_ns() const { return max_; }
  double mean_ns() const { return count_ ? double(sum_) / double(count_) : 0; }

  // The value at percentile q (0..100, e.g. 99.9): the middle of the bucket holding
  // the ceil(q% * count)-th smallest sample, clamped to [min, max]. 0 when empty.
  uint64_t Percentile(double q) const;

  // count, min/mean/max and p50/p90/p99/p99.9 in microseconds.
  LatencySummary Summarize() const;

  // The non-empty buckets, as results carry them (reports merge repeats from these).
  LatencyHistogram Buckets() const;

  // Bucket arithmetic, public for tests.
  static int BucketOf(uint64_t ns);
  static uint64_t BucketLow(int bucket);
  static uint64_t BucketWidth(int bucket);

 private:
  std::array<uint64_t, kBuckets> buckets_{};
  uint64_t count_ = 0;
  uint64_t min_ = UINT64_MAX;
  uint64_t max_ = 0;
  // 2^64 ns is 584 years of summed latency: no overflow in practice.
  uint64_t sum_ = 0;
};

}  // namespace storbed
