// A run's depth ladder as plain text, beside its bare-metal twin.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ladder.h"

namespace storbed {

// The title, one row per layer (depth, IOPS, request KiB, mean latency us, then the
// source or "not available: <reason>"), the bare-metal ladder's figures on the same row as
// the guest layer with its id (L0 and L3), layer notes, the largest depth loss of each
// ladder and the latency each layer adds. Ends with a newline.
std::string RenderLadder(const std::string& title, const Ladder& guest,
                         const std::optional<Ladder>& bare_metal);
// A bare-metal run without a guest twin: the same table, its column named bare metal.
std::string RenderBareMetalLadder(const std::string& title, const Ladder& bare_metal);

}  // namespace storbed
