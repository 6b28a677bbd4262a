#include "analysis/layer_words.h"

#include <cmath>
#include <cstdio>

namespace storbed {

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

}  // namespace storbed
