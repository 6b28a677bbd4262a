// A cell: the runs that repeat one combination (target x job x matrix parameters). The
// aggregated table and `storbed compare` group runs by it.
#pragma once

#include <string>
#include <vector>

#include "results/run_record.h"

namespace storbed {

// "virtio-blk rand-read disk.aio=native": the target (unless `by` is the targets field),
// the job and the run's matrix parameters, less the repeat and the field `by`.
std::string CellOf(const RunRecord& r, const std::string& by = "");

// A parameter value as cells and --by sides name it: strings bare, the rest as JSON.
std::string ParamText(const nlohmann::json& value);

// True for "targets" and "target", the names of the target field in --by.
bool IsTargetField(const std::string& field);

// A cell's runs that measured something (failed ones are counted beside them).
struct CellRuns {
  std::string cell;
  const RunRecord* first = nullptr;
  std::vector<const RunRecord*> ok;
  size_t failed = 0;
};

// The runs reports show: warm-ups left out (they only prepared their combination), in
// run id order (hosts in parallel append in the order runs end; ids number the plan).
std::vector<RunRecord> ReportedRuns(const std::vector<RunRecord>& records);

// The cells of `records` in first-seen order, pointers into `records`; a run that is not
// ok counts as failed, so leave warm-ups out first (ReportedRuns).
std::vector<CellRuns> GroupCells(const std::vector<RunRecord>& records);

}  // namespace storbed
