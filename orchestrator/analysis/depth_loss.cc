#include "analysis/depth_loss.h"

#include <cmath>
#include <cstdio>

namespace storbed {
namespace {

// A step must lose more than this share of its upper depth to count as a loss: Little's
// law depths from counters sampled at slightly different instants differ by a few percent
// even when nothing is lost.
constexpr double kLossShare = 0.10;
// Drops closer than this are a tie, so rounding in the counters cannot pick the lower step.
constexpr double kTieEpsilon = 1e-9;

std::vector<const LayerStats*> Available(const Ladder& ladder) {
  std::vector<const LayerStats*> out;
  for (const LayerStats& l : ladder.layers)
    if (l.available) out.push_back(&l);
  return out;
}

std::string FormatUs(double us) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.1f", us);
  return buf;
}

}  // namespace

std::string HumanLayerName(const std::string& layer_id) {
  if (layer_id == kLayerApp) return "the application";
  if (layer_id == kLayerGuestBlock) return "the guest block layer";
  if (layer_id == kLayerVirtqueue) return "the virtqueue";
  if (layer_id == kLayerQemuBlock) return "QEMU's block layer";
  if (layer_id == kLayerHostDevice) return "the host device";
  return layer_id;
}

std::string FormatDepth(double depth) {
  char buf[64];
  std::snprintf(buf, sizeof buf, std::fabs(depth) < 1 && depth != 0 ? "%.2f" : "%.1f", depth);
  return buf;
}

DepthLoss LargestDepthLoss(const Ladder& ladder) {
  const std::vector<const LayerStats*> layers = Available(ladder);
  DepthLoss loss;
  if (layers.empty()) {
    loss.sentence = "depth cannot be compared: no layer was measured";
    return loss;
  }
  if (layers.size() == 1) {
    loss.from_layer = loss.to_layer = layers[0]->layer;
    loss.from_depth = loss.to_depth = layers[0]->avg_depth;
    loss.sentence = "depth cannot be compared: only " + HumanLayerName(layers[0]->layer) +
                    " was measured (" + FormatDepth(layers[0]->avg_depth) + ")";
    return loss;
  }
  double best_drop = 0;
  for (size_t i = 0; i + 1 < layers.size(); ++i) {
    const double upper = layers[i]->avg_depth, lower = layers[i + 1]->avg_depth;
    const double drop = upper - lower;
    if (drop <= kLossShare * upper) continue;
    if (loss.found && drop <= best_drop + kTieEpsilon) continue;
    loss.found = true;
    best_drop = drop;
    loss.from_layer = layers[i]->layer;
    loss.to_layer = layers[i + 1]->layer;
    loss.from_depth = upper;
    loss.to_depth = lower;
  }
  if (loss.found) {
    loss.sentence = "depth falls from " + FormatDepth(loss.from_depth) + " in " +
                    HumanLayerName(loss.from_layer) + " to " + FormatDepth(loss.to_depth) + " in " +
                    HumanLayerName(loss.to_layer);
    return loss;
  }
  loss.from_layer = layers.front()->layer;
  loss.to_layer = layers.back()->layer;
  loss.from_depth = layers.front()->avg_depth;
  loss.to_depth = layers.back()->avg_depth;
  loss.sentence = "depth holds from " + HumanLayerName(loss.from_layer) + " to " +
                  HumanLayerName(loss.to_layer) + " (" + FormatDepth(loss.from_depth) + " -> " +
                  FormatDepth(loss.to_depth) + ")";
  return loss;
}

std::vector<LatencyStep> LatencyAdded(const Ladder& ladder) {
  std::vector<const LayerStats*> timed;
  for (const LayerStats& l : ladder.layers)
    if (l.available && l.has_latency) timed.push_back(&l);
  std::vector<LatencyStep> steps;
  for (size_t i = 0; i + 1 < timed.size(); ++i) {
    LatencyStep s;
    s.layer = timed[i]->layer;
    s.below = timed[i + 1]->layer;
    s.layer_us = timed[i]->mean_latency_us;
    s.below_us = timed[i + 1]->mean_latency_us;
    s.added_us = s.layer_us - s.below_us;
    s.sentence = HumanLayerName(s.layer) + " adds " + FormatUs(s.added_us) + " us above " +
                 HumanLayerName(s.below);
    steps.push_back(std::move(s));
  }
  return steps;
}

}  // namespace storbed
