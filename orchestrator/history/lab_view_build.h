// The lab page's data from a history (`storbed report --history DB --lab`): per scenario,
// every host's series of iops, p50_us and p99_us per cell (lab_series.h), their changes in
// words with whose each is, and tonight's gate per host: its latest night against the
// baseline nights of its fingerprint class (`last:7` unless told; history_gate.h), as
// `storbed gate` judges.
#pragma once

#include <string>

#include "history/gate_nights.h"
#include "history/history_gate.h"
#include "history/lab_series.h"
#include "reports/lab_view.h"

namespace storbed {

// Each host's gate picks its nights by `baseline` (as `storbed gate --baseline`) and judges
// with `gate`. Throws HistoryError for a database that is missing, not a history or newer;
// throws std::invalid_argument when it holds no session.
LabView BuildLabView(const std::string& db, const GateOptions& gate = {},
                     const GateBaselineRequest& baseline = {ParseBaseline("last:7"), "last:7",
                                                            {}, false});

}  // namespace storbed
