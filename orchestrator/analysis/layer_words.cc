#include "analysis/layer_words.h"

#include <cmath>
#include <cstdio>

#include "number_format.h"

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
  return FormatFixed(depth, std::fabs(depth) < 1 && depth != 0 ? 2 : 1);
}

}  // namespace storbed
