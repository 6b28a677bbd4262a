// The depth ladders of a results directory: each guest run beside the bare-metal run of
// the same job, with the step where depth is lost and the latency each layer adds.
#pragma once

#include <string>
#include <vector>

#include "results/run_record.h"

namespace storbed {

// One ladder to show: a run and, for a guest run, the bare-metal run of the same job.
struct LadderPair {
  const RunRecord* run = nullptr;
  const RunRecord* bare_metal_twin = nullptr;  // null when there is none or run is bare metal
};

// Warm-ups left out: every guest run with a ladder in record order, paired with the first
// bare-metal run of its job that has one; then the bare-metal runs no guest was paired
// with. Pointers into `records`.
std::vector<LadderPair> PairLadders(const std::vector<RunRecord>& records);

// One block per pair of PairLadders.
std::string RenderLadders(const std::vector<RunRecord>& records);

}  // namespace storbed
