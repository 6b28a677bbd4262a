// A run's depth ladder as plain text: one table per side (the guest, then its bare-metal
// twin), each followed by how to read it (ladder_reading.h).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ladder.h"

namespace storbed {

// The title, then for the guest and (when given) the bare-metal ladder: a heading, one row
// per layer (depth with its uncertainty, labelled "95%" for an interval from point samples,
// "bound" for the counters' resolution or span and "no interval" where the samples gave
// none; in-flight p50/p99/max, reads, writes and flushes per second, request KiB, mean
// latency us, then the source or "not available: <reason>"), layer notes with what each
// interval or bound rests on, the headline (cap or time split), the latency each layer adds
// (or "not comparable: <reason>"), the largest depth step and work a lower layer did that
// the one above did not issue. A depth that is not comparable with the rung above is shown
// as "n/c" with the reason below. Ends with a newline.
std::string RenderLadder(const std::string& title, const Ladder& guest,
                         const std::optional<Ladder>& bare_metal);
// A bare-metal run without a guest twin: the same, its one side named bare metal.
std::string RenderBareMetalLadder(const std::string& title, const Ladder& bare_metal);

// The repeats of one cell: per layer the median depth and latency over the ladders with
// their range, and how many repeats' headlines said what. Ends with a newline.
std::string RenderLadderMedians(const std::string& title,
                                const std::vector<const Ladder*>& ladders);

}  // namespace storbed
