// The figures of a traced run from its joined paths (io_path.h): each segment between two
// consecutive points of the path as a distribution, the waterfalls of the median IO, the
// p99 IO and the slowest 1%, each layer's depth from the IOs' own intervals set against
// the counters' ladder, and the share of the application's in-flight time spent above
// the block layer's issue.
//
// A point an IO did not pass on this path (no scheduler insert, a request taken from the
// plug's cache with no allocation event, no host submission) takes the time of the point
// before it, so its segment is 0 and every IO's segments add up to its latency exactly.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "io_trace_figures.h"
#include "ladder.h"
#include "tracing/io_path.h"

namespace storbed {

struct FigureInputs {
  std::string path;                    // "guest (virtio-blk)", "bare metal"
  uint64_t phase_start_ns = 0, phase_end_ns = 0;  // the IO phase, host CLOCK_MONOTONIC
  const Ladder* ladder = nullptr;       // the counters' ladder of the same run, if any
  std::string agent_layer;              // the agent's block layer's rung ("L1 guest block")
  std::optional<double> agent_layer_counter;  // its diskstats depth (the result's block stats)
  double agent_counter_span_s = 0;            // the seconds that depth is over (0: the phase)
  double histogram_p50_us = 0;          // the engine's own p50
  std::optional<double> configured_backend_us;  // null-co's null_latency
  std::optional<double> qemu_timer_slack_us;    // QEMU's threads' timer slack
};

IoTraceFigures ComputeIoTraceFigures(const PathJoin& join, const FigureInputs& in);

// "to QEMU" for (issued, QEMU pickup), ...: the name of the segment between two points.
std::string SegmentName(PathPoint from, PathPoint to);

}  // namespace storbed
