// A cell: the runs that repeat one combination (target x job x matrix parameters). The
// aggregated table and `storbed compare` group runs by it.
#pragma once

#include <string>

#include "results/run_record.h"

namespace storbed {

// "virtio-blk rand-read disk.aio=native": the target (unless `by` is the targets field),
// the job and the run's matrix parameters, less the repeat and the field `by`.
std::string CellOf(const RunRecord& r, const std::string& by = "");

// A parameter value as cells and --by sides name it: strings bare, the rest as JSON.
std::string ParamText(const nlohmann::json& value);

// True for "targets" and "target", the names of the target field in --by.
bool IsTargetField(const std::string& field);

}  // namespace storbed
