// Where a job's queue depth is lost on the way down the ladder, and how much latency each
// layer adds above the one below it.
#pragma once

#include <string>
#include <vector>

#include "ladder.h"

namespace storbed {

// A layer id in words for sentences: "the application", "the guest block layer", ...
// Unknown ids come back unchanged.
std::string HumanLayerName(const std::string& layer_id);

// Depth as the reports print it: one decimal, two below 1 so 0.04 does not read as 0.0.
std::string FormatDepth(double depth);

struct DepthLoss {
  bool found = false;                // a step lost more than 10% of its upper depth
  std::string from_layer, to_layer;  // layer ids; when !found, the top and bottom measured
  double from_depth = 0, to_depth = 0;
  std::string sentence;  // "depth falls from 31.8 in ... to 3.9 in ..." or "depth holds ..."
};

// Compares consecutive available layers (unavailable ones are skipped, so L1 is compared
// with L2 QEMU block when the virtqueue was not measured). Of the steps that lose more than
// 10% of their upper depth, returns the one with the largest absolute drop; on a tie the
// upper step. With none, found is false and the sentence says depth holds.
DepthLoss LargestDepthLoss(const Ladder& ladder);

struct LatencyStep {
  std::string layer;  // the upper layer's id
  std::string below;  // the next lower layer with a latency
  double layer_us = 0, below_us = 0;
  double added_us = 0;   // layer_us - below_us: the time spent above `below`; may be < 0
  std::string sentence;  // "the application adds 12.3 us above the guest block layer"
};

// One step per pair of consecutive available layers that both have a mean latency, top
// down. Empty when fewer than two layers have one.
std::vector<LatencyStep> LatencyAdded(const Ladder& ladder);

}  // namespace storbed
