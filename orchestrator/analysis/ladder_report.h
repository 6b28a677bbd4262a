// Plain-text reports of the analysis: a run's depth ladder beside its bare-metal twin,
// and a one-line summary of each sampled timeline.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ladder.h"
#include "timeline.h"

namespace storbed {

// The title, one row per layer (depth, IOPS, request KiB, mean latency us, then the
// source or "not available: <reason>"), the bare-metal ladder's figures on the same row as
// the guest layer with its id (L0 and L3), layer notes, the largest depth loss of each
// ladder and the latency each layer adds. Ends with a newline.
std::string RenderLadder(const std::string& title, const Ladder& guest,
                         const std::optional<Ladder>& bare_metal);
// A bare-metal run without a guest twin: the same table, its column named bare metal.
std::string RenderBareMetalLadder(const std::string& title, const Ladder& bare_metal);

// One line per timeline: name, samples, min/mean/max and unit. Ends with a newline when
// there is at least one timeline.
std::string RenderTimelineSummary(const std::vector<Timeline>& timelines);

}  // namespace storbed
