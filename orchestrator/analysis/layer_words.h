// A ladder's layers and depths in words, as every report and sentence says them.
#pragma once

#include <string>

#include "ladder.h"

namespace storbed {

// A layer id in words for sentences: "the application", "the guest block layer", ...
// Unknown ids come back unchanged.
std::string HumanLayerName(const std::string& layer_id);

// Depth as the reports print it: one decimal, two below 1 so 0.04 does not read as 0.0.
std::string FormatDepth(double depth);

}  // namespace storbed
