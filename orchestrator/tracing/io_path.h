// Every traced IO's path on one clock, the host's CLOCK_MONOTONIC: the agent's half (the
// application and the block layer it runs over, io_trace.h), and under a guest QEMU's
// requests (qemu_requests.h) and the host device's (host_block_trace.h) joined to it.
//
// The guest's clock is mapped onto the host's in two steps. First the agent link's round
// trips (Cristian's algorithm: the offset within half the shortest round trip, often a
// millisecond under TCG) place QEMU's requests near the guest's, where sectors, direction
// and order pick each IO's own. Then causality narrows the offset: the guest issued each
// request before QEMU picked it up, and QEMU completed it before the guest saw it complete,
// so the offset lies above every (issue - pickup) and below every (guest completion -
// QEMU completion). Each IO is joined once more with that offset; an event two IOs could
// own leaves both out (ambiguous), never guessed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "io_trace.h"
#include "tracefs_session.h"
#include "tracing/backing_map.h"
#include "tracing/qemu_requests.h"

namespace storbed {

// The points an IO passes, in path order; a path has the ones its layers have.
enum class PathPoint : int {
  AppQueued,     // the agent: its refill's first submit call (it counts in flight from here)
  AppSubmit,     // ... just before its own submit call
  BioQueue,      // block layer (guest's, or bare metal's): the bio arrives
  GetRq,         // ... a request is allocated for it (a tag is free)
  RqInsert,      // ... queued in the scheduler
  RqIssue,       // ... issued to the driver
  QemuPickup,    // QEMU: taken off the virtqueue or submission queue
  QemuBlock,     // ... handed to QEMU's block layer
  QemuSubmit,    // ... handed to the host (io_uring, the thread pool)
  HostIssue,     // host device: issued (its block layer's request for QEMU's IO)
  HostComplete,  // ... completed
  QemuComplete,  // QEMU: completed the request
  RqComplete,    // block layer: the request completed
  AppSeen,       // the agent saw the IO complete
};
inline constexpr int kPathPoints = 14;
const char* PathPointName(PathPoint p);  // "app submit", "guest issue", ...

struct TracedPath {
  uint64_t offset = 0;
  uint32_t bytes = 0;
  bool write = false;
  uint64_t at[kPathPoints] = {};  // host CLOCK_MONOTONIC ns; 0 = not seen
  bool joined = false;            // seen at every layer the path has
  uint64_t At(PathPoint p) const { return at[int(p)]; }
};

// How the guest's clock was put on the host's.
struct ClockMapping {
  int64_t offset_ns = 0;        // guest - host
  uint64_t uncertainty_ns = 0;  // +- around it
  std::string method;           // "causal bounds from N IOs", "agent link round trips"
  // The offset from the first and the second half of the IOs: a guest clock that runs at
  // another rate shows as halves that do not overlap (nullopt: too few IOs to tell).
  std::optional<int64_t> first_half_ns, second_half_ns;
  bool drift = false;
};

// A layer the path has but could not be traced, and why.
struct UntracedLayer {
  std::string layer;   // "QEMU", "host device"
  std::string reason;  // "null-co has no device: QEMU completes each request itself"
};

struct PathInputs {
  std::vector<AgentTracedIo> agent;  // the agent's IOs, its clock
  uint64_t first_sector = 0;         // of the target on its disk (IoTraceSummary)
  bool guest = false;                // false: bare metal, the agent's clock is the host's
  int64_t link_offset_ns = 0;        // guest: the agent link's estimate (guest - host)
  uint64_t link_uncertainty_ns = 0;
  std::optional<QemuRequests> qemu;  // guest: QEMU's requests (CLOCK_REALTIME)
  int64_t realtime_to_mono_ns = 0;   // host CLOCK_MONOTONIC - CLOCK_REALTIME
  std::optional<BlockTraceCapture> host_device;  // guest: the host device's events
  BackingMap backing;                            // where the backing lies on it
};

struct PathJoin {
  std::vector<TracedPath> paths;  // in submission order
  std::vector<PathPoint> points;  // the points this path has, in order
  ClockMapping clock;
  uint64_t joined = 0;  // IOs seen at every layer
  // Per layer: IOs missing there or left out as ambiguous.
  uint64_t agent_missing = 0, agent_ambiguous = 0;
  uint64_t qemu_missing = 0, qemu_ambiguous = 0;
  uint64_t host_missing = 0, host_ambiguous = 0;
  std::vector<UntracedLayer> untraced;  // filled by the caller for layers never traced
};

// Joins `in` into one path per IO. Never throws for what the traces hold.
PathJoin JoinPaths(const PathInputs& in);

}  // namespace storbed
