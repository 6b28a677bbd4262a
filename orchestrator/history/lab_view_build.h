// The lab page's data from a history (`storbed report --history DB --lab`): per scenario,
// every host's series of iops, p50_us and p99_us per cell (lab_series.h), their changes in
// words with whose each is, and tonight's gate per host: its latest night against the
// `last:7` nights of its fingerprint class (history_gate.h), as `storbed gate` judges.
#pragma once

#include <string>

#include "history/gate_nights.h"
#include "history/lab_series.h"
#include "reports/lab_view.h"

namespace storbed {

// Throws HistoryError for a database that is missing, not a history or newer; throws
// std::invalid_argument when it holds no session.
LabView BuildLabView(const std::string& db, const GateOptions& gate = {});

}  // namespace storbed
