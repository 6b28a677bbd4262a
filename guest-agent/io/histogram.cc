#include "histogram.h"

#include <algorithm>
#include <bit>
#include <cassert>
#include <cmath>

namespace storbed {

// Layout: buckets [0, 128) hold values 0..127 exactly. Group g >= 1 holds values with
// their top bit at position g + kSubBits, i.e. [64 << g, 128 << g), in 64 buckets of
// width 2^g.
int Histogram::BucketOf(uint64_t ns) {
  if (ns < 2 * kSub) return int(ns);
  const int msb = 63 - std::countl_zero(ns);
  const int g = msb - kSubBits;
  return int(2 * kSub + (g - 1) * kSub + ((ns >> g) - kSub));
}

uint64_t Histogram::BucketLow(int bucket) {
  assert(bucket >= 0 && bucket < kBuckets);
  if (bucket < int(2 * kSub)) return uint64_t(bucket);
  const int rel = bucket - int(2 * kSub);
  const int g = rel / int(kSub) + 1;
  return (uint64_t(rel % int(kSub)) + kSub) << g;
}

uint64_t Histogram::BucketWidth(int bucket) {
  if (bucket < int(2 * kSub)) return 1;
  return uint64_t(1) << ((bucket - int(2 * kSub)) / int(kSub) + 1);
}

void Histogram::Record(uint64_t ns) {
  ++buckets_[BucketOf(ns)];
  ++count_;
  sum_ += ns;
  min_ = std::min(min_, ns);
  max_ = std::max(max_, ns);
}

void Histogram::Merge(const Histogram& other) {
  for (int i = 0; i < kBuckets; ++i) buckets_[i] += other.buckets_[i];
  count_ += other.count_;
  sum_ += other.sum_;
  min_ = std::min(min_, other.min_);
  max_ = std::max(max_, other.max_);
}

uint64_t Histogram::Percentile(double q) const {
  if (count_ == 0) return 0;
  q = std::clamp(q, 0.0, 100.0);
  const uint64_t rank =
      std::max<uint64_t>(1, uint64_t(std::ceil(q / 100.0 * double(count_))));
  uint64_t seen = 0;
  for (int i = 0; i < kBuckets; ++i) {
    seen += buckets_[i];
    if (seen >= rank) {
      // Width-1 buckets are exact; wider ones report their middle.
      const uint64_t mid = BucketLow(i) + BucketWidth(i) / 2;
      return std::clamp(mid, min_, max_);
    }
  }
  return max_;
}

LatencySummary Histogram::Summarize() const {
  LatencySummary s;
  s.count = count_;
  if (count_ == 0) return s;
  auto us = [](double ns) { return ns / 1000.0; };
  s.min_us = us(double(min_));
  s.max_us = us(double(max_));
  s.mean_us = us(mean_ns());
  s.p50_us = us(double(Percentile(50)));
  s.p90_us = us(double(Percentile(90)));
  s.p99_us = us(double(Percentile(99)));
  s.p999_us = us(double(Percentile(99.9)));
  return s;
}

LatencyHistogram Histogram::Buckets() const {
  LatencyHistogram h;
  for (int i = 0; i < kBuckets; ++i)
    if (buckets_[i] != 0) h.Add(BucketLow(i), BucketWidth(i), buckets_[i]);
  return h;
}

}  // namespace storbed
