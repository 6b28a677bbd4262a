// The depth ladders of a results directory: each guest run beside the bare-metal run of
// the same job, with the step where depth is lost and the latency each layer adds.
#pragma once

#include <string>
#include <vector>

#include "results/run_record.h"

namespace storbed {

// One block per run that has a ladder; a guest run is paired with the bare-metal run of
// the same job when there is one, and bare-metal runs already shown are not repeated.
std::string RenderLadders(const std::vector<RunRecord>& records);

}  // namespace storbed
