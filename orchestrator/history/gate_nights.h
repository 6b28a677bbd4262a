// `storbed gate`'s judgement: tonight's runs against the baseline nights of the history,
// night by night (judging/night_model.h), as a CompareReport the compare renderers, the
// JSON and the JUnit writer read. One row per cell and metric of tonight: primary and
// secondary metrics judged in a Holm family each, the rest shown side by side.
#pragma once

#include <vector>

#include "reports/compare.h"
#include "results/run_record.h"

namespace storbed {

struct GateOptions {
  double alpha = 0.01;
  double noise = 0.02;
  double guard = 0.10;  // the change the gate must be able to see (0.10 = 10%)
};

// `nights`: each baseline session's records, oldest first; `tonight`: tonight's records.
CompareReport JudgeTonight(const std::vector<std::vector<RunRecord>>& nights,
                           const std::vector<RunRecord>& tonight, const GateOptions& options);

// Some primary row could not be judged: the gate could not see a change of the size it guards.
bool AnyCannotJudge(const CompareReport& report);

}  // namespace storbed
