// The depth ladder: one job's queue depth, IOPS, request size and latency at each layer
// from the application down to the host device. A layer that could not be measured says
// why instead of carrying a number.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace storbed {

// Layer ids in ladder order.
inline constexpr const char* kLayerApp = "L0 app";                 // agent's own in-flight
inline constexpr const char* kLayerGuestBlock = "L1 guest block";  // guest /proc/diskstats
inline constexpr const char* kLayerVirtqueue = "L2 virtqueue";     // x-query-virtio-queue-status
inline constexpr const char* kLayerQemuBlock = "L2 QEMU block";    // query-blockstats
inline constexpr const char* kLayerHostDevice = "L3 host device";  // host /proc/diskstats

// How many requests a layer held at once over the window. From the agent's own count it is
// time-weighted over every change (exact); elsewhere it is over point samples.
struct InflightDistribution {
  bool available = false;
  bool exact = false;    // time-weighted over every change, not sampled
  uint64_t samples = 0;  // point samples behind it (0 when exact)
  double p50 = 0, p99 = 0, max = 0;
  std::vector<double> share;  // share[n]: share of the window (or samples) with n in flight
  // The share of the window (or samples) with more than `n` in flight.
  double ShareAbove(double n) const;
};

// A limit below a layer that would cap its in-flight count, e.g. guest nr_requests 4.
struct LayerLimit {
  std::string layer;  // the layer it caps
  std::string cause;  // "guest nr_requests", "virtqueue size x num-queues", ...
  double value = 0;
};

struct LayerStats {
  std::string layer;  // one of the ids above
  bool available = false;
  std::string reason;    // why not available
  std::string source;    // where the figures come from, e.g. "/proc/diskstats vda"
  double avg_depth = 0;  // Little's law over the IO phase
  bool has_iops = false;
  double iops = 0;
  bool has_request_size = false;
  double avg_request_bytes = 0;
  bool has_latency = false;
  double mean_latency_us = 0;      // residence time per request at this layer
  std::vector<std::string> notes;  // e.g. "device shared with other host IO"
  // How far avg_depth may be off, of one of three kinds (none of them: an exact integral
  // over the window, the application's own count):
  // - a 95% interval (half width) from point samples of the count, and what it rests on
  //   (orchestrator/judging/mean_interval.h);
  // - a bound that is no statistical interval: the counters' resolution, or their span
  //   beyond the window (half width, and what it rests on);
  // - point samples too few or too alike for an interval: interval_refused says why.
  bool has_depth_interval = false;
  double depth_ci95 = 0;
  std::string interval_basis;
  bool has_depth_bound = false;
  double depth_bound = 0;
  std::string bound_basis;
  std::string interval_refused;
  uint64_t depth_samples = 0;  // point samples behind the interval or the refusal
  InflightDistribution inflight;
  // Requests per second by kind, so reads, writes and flushes are compared separately.
  bool has_ops = false;
  double reads_per_s = 0, writes_per_s = 0, flushes_per_s = 0;
};

struct Ladder {
  std::vector<LayerStats> layers;  // in ladder order, only the layers this target has
  std::vector<LayerLimit> limits;  // known limits on the path (nr_requests, queue size, ...)
};

void to_json(nlohmann::json& j, const InflightDistribution& d);
void from_json(const nlohmann::json& j, InflightDistribution& d);
void to_json(nlohmann::json& j, const LayerLimit& l);
void from_json(const nlohmann::json& j, LayerLimit& l);
void to_json(nlohmann::json& j, const LayerStats& l);
void from_json(const nlohmann::json& j, LayerStats& l);
void to_json(nlohmann::json& j, const Ladder& l);
void from_json(const nlohmann::json& j, Ladder& l);

}  // namespace storbed
