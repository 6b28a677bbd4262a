#include "sampling/clock_sync.h"

#include <time.h>

#include <limits>

namespace storbed {

uint64_t HostMonotonicNs() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000ull + static_cast<uint64_t>(ts.tv_nsec);
}

ClockOffset EstimateClockOffset(const std::function<uint64_t()>& agent_now_ns_via_round_trip,
                                int rounds) {
  return EstimateClockOffset(agent_now_ns_via_round_trip, rounds, HostMonotonicNs);
}

ClockOffset EstimateClockOffset(const std::function<uint64_t()>& agent_now, int rounds,
                                const std::function<uint64_t()>& host_now) {
  ClockOffset best;
  uint64_t best_rtt = std::numeric_limits<uint64_t>::max();
  for (int i = 0; i < rounds; ++i) {
    const uint64_t t0 = host_now();
    const uint64_t agent = agent_now();
    const uint64_t t1 = host_now();
    ++best.samples;
    const uint64_t rtt = t1 >= t0 ? t1 - t0 : 0;
    if (rtt >= best_rtt) continue;
    best_rtt = rtt;
    // Midpoint without overflow; the difference of two uint64 clocks fits int64 here
    // (both count from boot, which is far less than 292 years ago).
    const uint64_t mid = t0 + rtt / 2;
    best.offset_ns = static_cast<int64_t>(agent - mid);
    best.uncertainty_ns = (rtt + 1) / 2;
  }
  return best;
}

uint64_t AgentToHostNs(const ClockOffset& o, uint64_t agent_ns) {
  return agent_ns - static_cast<uint64_t>(o.offset_ns);
}

}  // namespace storbed
