// What a traced run's joined IOs say (docs/tracing.md): where each IO's time went, segment
// by segment along its path, the depth of each layer from the IOs' own intervals beside
// the counters' ladder, and waterfalls of the median and the slow IOs. Made on the host
// (orchestrator/tracing/io_path_figures), stored in the run's record, rendered by reports/.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace storbed {

struct SegmentFigures {
  std::string name;      // "to QEMU"
  std::string from, to;  // the points: "issued", "QEMU pickup"
  std::string clocks;    // "guest", "host", "guest -> host": where its two ends were timed
  double p50_us = 0, p90_us = 0, p99_us = 0, max_us = 0, mean_us = 0;
  std::vector<double> percentiles_us;  // 0th .. 100th (101 values), for the CDF
};

struct WaterfallStep {
  std::string segment;
  double start_us = 0;  // from the IO's submit
  double us = 0;
};

struct Waterfall {
  std::string which;  // "median IO", "p99 IO", "slowest 1% (mean)"
  double latency_us = 0;
  std::vector<WaterfallStep> steps;
};

struct DepthFromIos {
  std::string layer;     // the ladder's id: "L0 app", "L1 guest block", ...
  std::string interval;  // "app submit .. app seen"
  double depth = 0;      // time-weighted over the IO phase, from the IOs that have it
  double ios_share = 0;  // of the IOs, those that had this interval
  std::optional<double> counter;   // the counter-based ladder's figure for the layer
  // The counter over the IO phase: counters read around a wider window spread the same
  // request time over more seconds (their figure times span / window).
  std::optional<double> counter_over_phase;
  std::string window;              // "samples 2.100 s apart around the 2.001 s phase"
  std::optional<double> diff_pct;  // (depth - counter over the phase) / it
  std::string note;                // why the two differ, where known
};

struct NotTraced {
  std::string layer;
  std::string reason;
};

struct IoTraceFigures {
  std::string path;  // "guest (virtio-blk)", "bare metal"
  uint64_t ios = 0;     // IOs the agent logged
  uint64_t joined = 0;  // seen at every traced layer
  double joined_share = 0;
  // Per layer: IOs not seen there, or left out because an event could be another's.
  uint64_t agent_missing = 0, agent_ambiguous = 0;
  uint64_t qemu_missing = 0, qemu_ambiguous = 0;
  uint64_t host_missing = 0, host_ambiguous = 0;
  std::vector<std::string> points;  // the path's points in order
  std::vector<NotTraced> not_traced;
  // The guest's clock on the host's (0 for bare metal).
  int64_t clock_offset_ns = 0;
  uint64_t clock_uncertainty_ns = 0;
  std::string clock_method;
  bool clock_drift = false;
  uint64_t resolution_ns = 1000;  // the traces' own
  // How the agent's block events got onto its CLOCK_MONOTONIC: "" when read on it, else
  // "each CPU's local clock mapped by markers, +- 3.1 us" (tracefs_session.h).
  std::string block_clock;
  std::vector<SegmentFigures> segments;
  std::vector<Waterfall> waterfalls;
  std::vector<DepthFromIos> depth;
  // Of the application's in-flight time (its depth: each IO from when it began to count),
  // the share before the (guest) block layer issued the request (waiting above it) and
  // after it completed (on the way back); the rest was issued, in the device and below.
  double share_before_issue = 0, share_after_complete = 0;
  // The mean time an IO counted in flight before its own submit call began (the later IOs
  // of an asynchronous refill, counted from the refill's first call as fio counts them):
  // in the application's depth, not in its latency.
  double queued_before_submit_us = 0;
  // null-co: the latency it was configured with against what the QEMU backend segment
  // measured, and the timer slack of QEMU's threads (/proc/PID/task/*/timerslack_ns).
  std::optional<double> configured_backend_us;
  double backend_min_us = 0, backend_p50_us = 0;
  std::optional<double> qemu_timer_slack_us;
  // The joined IOs' median latency against the engine's histogram's (its own measure).
  double joined_p50_us = 0, histogram_p50_us = 0, p50_diff_pct = 0;
  std::string file;  // the joined IOs, beside the results: "traces/<run>.ios.tsv.zst"
  uint64_t file_ios = 0, file_cap = 0;
  bool complete = true;  // false: a trace was cut short (warnings say which)
  std::vector<std::string> warnings;
  std::string overhead;  // what tracing costs, as measured (docs/tracing.md)
};

void to_json(nlohmann::json& j, const IoTraceFigures& f);
void from_json(const nlohmann::json& j, IoTraceFigures& f);

}  // namespace storbed
