#include "trace_clock_map.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace storbed {
namespace {

// A CPU's trace clock with a known truth: trace = (mono - offset) * speed.
struct TrueClock {
  int cpu;
  long double offset, speed;
  uint64_t TraceAt(long double mono) const {
    return uint64_t((mono - offset) * speed) / 1000 * 1000;  // the text's microseconds
  }
};

ClockSyncSample Marker(const TrueClock& c, uint64_t mono_before, uint64_t width,
                       std::mt19937_64& rng) {
  // The stamp is taken somewhere inside the bracket.
  const uint64_t at = mono_before + std::uniform_int_distribution<uint64_t>(0, width)(rng);
  return {c.cpu, mono_before, mono_before + width, c.TraceAt(at)};
}

// Two CPUs whose clocks differ by 40 ms and run 300 ppm apart (a guest's TSC against its
// HPET), markers bracketed by 2-30 us reads: every mapped event lies within the stated
// uncertainty of its true CLOCK_MONOTONIC time, 5 s of events and 2000 seeded draws.
TEST(TraceClockMap, MapsEachCpuWithinTheStatedUncertainty) {
  const TrueClock clocks[] = {{0, 1e9L, 1.0003L}, {1, 1.04e9L, 0.9998L}};
  std::mt19937_64 rng(33);
  std::uniform_int_distribution<uint64_t> width(2000, 30000);
  std::vector<ClockSyncSample> before, after;
  for (const TrueClock& c : clocks)
    for (int k = 0; k < 8; ++k) {
      before.push_back(Marker(c, 2000000000ull + k * 50000ull, width(rng), rng));
      after.push_back(Marker(c, 7000000000ull + k * 50000ull, width(rng), rng));
    }
  const TraceClockMap map = TraceClockMap::Fit(before, after);
  ASSERT_EQ(map.problem(), "");
  EXPECT_GT(map.uncertainty_ns(), 500u);
  EXPECT_LT(map.uncertainty_ns(), 15500u);
  double worst = 0;
  for (int i = 0; i < 2000; ++i) {
    const TrueClock& c = clocks[i % 2];
    const uint64_t truth = 2000500000ull + std::uniform_int_distribution<uint64_t>(0, 5e9)(rng);
    const auto mapped = map.ToMono(c.cpu, c.TraceAt(truth));
    ASSERT_TRUE(mapped);
    // The event's own microsecond cut, as the join's slack allows, beside the fit's error.
    const double error = double(*mapped) - double(truth);
    worst = std::max(worst, std::fabs(error));
    EXPECT_LE(std::fabs(error), map.uncertainty_ns() + 1000.0) << "event " << i;
  }
  EXPECT_GT(worst, 0);
}

TEST(TraceClockMap, ACpuWithoutBothMarkerGroupsHasNoFitAndIsNamed) {
  const TrueClock c0{0, 0, 1}, c2{2, 0, 1};
  std::mt19937_64 rng(1);
  const TraceClockMap map = TraceClockMap::Fit({Marker(c0, 1000000, 4000, rng)},
                                               {Marker(c0, 9000000, 4000, rng),
                                                Marker(c2, 9000000, 4000, rng)});
  EXPECT_TRUE(map.Has(0));
  EXPECT_FALSE(map.Has(2));
  EXPECT_FALSE(map.ToMono(2, 5000000));
  EXPECT_EQ(map.problem(), "the trace clock of CPU 2 has no marker before the events");
}

TEST(TraceClockMap, AClockThatRanAtAnotherRateIsRefused) {
  const TrueClock fast{0, 0, 1.5L};
  std::mt19937_64 rng(1);
  const TraceClockMap map =
      TraceClockMap::Fit({Marker(fast, 1000000, 1000, rng)}, {Marker(fast, 9000000, 1000, rng)});
  EXPECT_FALSE(map.Has(0));
  EXPECT_NE(map.problem().find("CPU 0 ran at 0.66"), std::string::npos) << map.problem();
}

}  // namespace
}  // namespace storbed
