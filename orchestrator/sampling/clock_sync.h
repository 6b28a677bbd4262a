// The guest agent's CLOCK_MONOTONIC against the host's, from protocol round trips
// (Cristian's algorithm): the agent read its clock somewhere inside [t0, t1], so
// agent - (t0+t1)/2 is the offset within +-(t1-t0)/2; the shortest round trip wins.
#pragma once

#include <cstdint>
#include <functional>

namespace storbed {

struct ClockOffset {
  int64_t offset_ns = 0;        // agent - host
  uint64_t uncertainty_ns = 0;  // half the best round trip
  int samples = 0;              // round trips that completed
};

// The host's CLOCK_MONOTONIC in ns.
uint64_t HostMonotonicNs();

// Calls `agent_now_ns_via_round_trip` (sends hello, returns the agent's monotonic_ns)
// `rounds` times. Exceptions from it propagate. rounds < 1 gives samples = 0.
ClockOffset EstimateClockOffset(const std::function<uint64_t()>& agent_now_ns_via_round_trip,
                                int rounds);
// Same with the host clock injected (tests).
ClockOffset EstimateClockOffset(const std::function<uint64_t()>& agent_now_ns_via_round_trip,
                                int rounds, const std::function<uint64_t()>& host_now_ns);

// An agent CLOCK_MONOTONIC time on the host's axis.
uint64_t AgentToHostNs(const ClockOffset& o, uint64_t agent_ns);

}  // namespace storbed
