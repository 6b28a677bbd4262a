// The history's side of `storbed gate`: which sessions are tonight's baseline nights, and
// tonight judged against them. A lab's store holds every host's nights, so by default the
// baseline is tonight's fingerprint class only (the same CPU, kernel, QEMU, backing device);
// `storbed gate` and the lab page (`report --lab`) both come here.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "history/baseline.h"
#include "history/gate_nights.h"
#include "history/history_store.h"
#include "reports/compare.h"
#include "reports/compare_environment.h"

namespace storbed {

struct GateBaselineRequest {
  BaselineSpec spec;
  std::string spec_text = "last:7";     // as the user wrote it, for messages
  std::vector<std::string> allow_diff;  // storbed.git_revision is always allowed
  bool any_class = false;               // take nights of every fingerprint class
};

struct GateBaseline {
  std::string tonight_class;
  size_t earlier = 0;                  // sessions of tonight's scenario that started before tonight
  size_t other_class = 0;              // of those, skipped as another fingerprint class
  std::vector<HistorySession> picked;  // what the spec picked of the rest
  std::vector<HistorySession> accepted;  // of those, whose environment the gate accepts
  std::vector<EnvironmentDiff> rejected_by, latest_accepted;  // to show
};

// Picks tonight's baseline from `sessions` (tonight's scenario, in start order) for tonight's
// `manifest`.
GateBaseline PickGateBaseline(const std::vector<HistorySession>& sessions,
                              const nlohmann::json& manifest, const GateBaselineRequest& request);

struct GateOutcome {
  GateBaseline baseline;
  CompareReport report;  // comparable false when no picked night has an accepted environment
};

// Tonight's `records` (of `manifest`'s run) against its baseline in `store`. Throws
// std::invalid_argument naming `tonight_name` when the spec picks no night.
GateOutcome GateFromHistory(HistoryStore& store, const nlohmann::json& manifest,
                            const std::vector<RunRecord>& records, const std::string& tonight_name,
                            const GateBaselineRequest& request, const GateOptions& options);

// "class 3f2a...: 7 nights of it picked, 14 skipped as another class" (or "every class").
std::string BaselineClassText(const GateBaseline& baseline, bool any_class);

}  // namespace storbed
