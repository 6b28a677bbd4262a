// The depth ladder: one job's queue depth, IOPS, request size and latency at each layer
// from the application down to the host device. A layer that could not be measured says
// why instead of carrying a number.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace storbed {

// Layer ids in ladder order.
inline constexpr const char* kLayerApp = "L0 app";                // agent's own in-flight
inline constexpr const char* kLayerGuestBlock = "L1 guest block";  // guest /proc/diskstats
inline constexpr const char* kLayerVirtqueue = "L2 virtqueue";     // x-query-virtio-queue-status
inline constexpr const char* kLayerQemuBlock = "L2 QEMU block";    // query-blockstats
inline constexpr const char* kLayerHostDevice = "L3 host device";  // host /proc/diskstats

struct LayerStats {
  std::string layer;           // one of the ids above
  bool available = false;
  std::string reason;          // why not available
  std::string source;          // where the figures come from, e.g. "/proc/diskstats vda"
  double avg_depth = 0;        // Little's law over the IO phase
  bool has_iops = false;
  double iops = 0;
  bool has_request_size = false;
  double avg_request_bytes = 0;
  bool has_latency = false;
  double mean_latency_us = 0;  // residence time per request at this layer
  std::vector<std::string> notes;  // e.g. "device shared with other host IO"
};

struct Ladder {
  std::vector<LayerStats> layers;  // in ladder order, only the layers this target has
};

void to_json(nlohmann::json& j, const LayerStats& l);
void from_json(const nlohmann::json& j, LayerStats& l);
void to_json(nlohmann::json& j, const Ladder& l);
void from_json(const nlohmann::json& j, Ladder& l);

}  // namespace storbed
