#include "sampling/clock_sync.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <random>

namespace storbed {
namespace {

// A simulated host clock and an agent whose clock is host + kOffset; each round trip
// takes a random outbound and return delay, one round is fast.
TEST(ClockSyncTest, FindsKnownOffsetWithinHalfTheBestRoundTrip) {
  constexpr int64_t kOffset = -3'000'000'123;  // agent booted later than the host
  std::mt19937 rng(7);
  std::uniform_int_distribution<uint64_t> delay(20'000, 400'000);
  uint64_t host = 50'000'000'000;
  int round = 0;
  auto host_now = [&] { return host; };
  auto agent = [&] {
    const bool fast = ++round == 5;
    host += fast ? 1'000 : delay(rng);        // request on its way
    const uint64_t reading = host + kOffset;  // agent reads its clock
    host += fast ? 3'000 : delay(rng);        // reply on its way
    return reading;
  };
  ClockOffset o = EstimateClockOffset(agent, 10, host_now);
  EXPECT_EQ(o.samples, 10);
  EXPECT_EQ(o.uncertainty_ns, 2'000u);  // the fast round: 4 us round trip
  EXPECT_LE(std::llabs(o.offset_ns - kOffset), static_cast<long long>(o.uncertainty_ns));
  EXPECT_EQ(o.offset_ns, kOffset - 1'000);  // asymmetric delays bias the midpoint
  EXPECT_EQ(AgentToHostNs(o, 123'456'789'000 + kOffset - 1'000), 123'456'789'000u);
}

TEST(ClockSyncTest, RealClockAgainstItselfIsNearZero) {
  ClockOffset o = EstimateClockOffset([] { return HostMonotonicNs() + 1'000'000; }, 20);
  EXPECT_EQ(o.samples, 20);
  EXPECT_LE(std::llabs(o.offset_ns - 1'000'000), static_cast<long long>(o.uncertainty_ns) + 1);
}

TEST(ClockSyncTest, NoRoundsNoSamples) {
  EXPECT_EQ(EstimateClockOffset([] { return uint64_t{1}; }, 0).samples, 0);
}

}  // namespace
}  // namespace storbed
