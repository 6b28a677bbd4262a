#include "history/history_gate.h"

#include <algorithm>
#include <stdexcept>

namespace storbed {

GateBaseline PickGateBaseline(const std::vector<HistorySession>& sessions,
                              const nlohmann::json& manifest, const GateBaselineRequest& request) {
  GateBaseline out;
  out.tonight_class = FingerprintClass(manifest);
  const std::string tonight = manifest.value("session", "");
  const std::string started_at = manifest.value("started_at", "");
  // storbed's own revision moves from night to night by design (the history names it).
  std::vector<std::string> allowed = request.allow_diff;
  allowed.push_back("storbed.git_revision");
  const auto accepts = [&](const HistorySession& s) {
    const auto diffs = DiffEnvironments(s.manifest, manifest, allowed);
    return std::none_of(diffs.begin(), diffs.end(), Blocks);
  };
  std::vector<HistorySession> earlier, of_class;
  for (const HistorySession& s : sessions) {
    if (s.session == tonight || !(s.started_at < started_at)) continue;
    earlier.push_back(s);
    // Before the spec picks: `last:7` means this class's last 7 nights, not the lab's. A
    // night of another class whose differences --allow-diff allows is of tonight's.
    if (!request.any_class && s.fingerprint_class != out.tonight_class && !accepts(s)) {
      ++out.other_class;
      continue;
    }
    of_class.push_back(s);
  }
  out.earlier = earlier.size();
  // No night of tonight's class at all (one host whose QEMU changed): the spec picks from
  // every class, so the gate says what differs (not comparable) rather than "no baseline".
  out.picked =
      PickBaseline(of_class.empty() ? earlier : of_class, request.spec, tonight, started_at);
  // Likewise a --baseline that names only nights of another class (a date range before a
  // QEMU update): those nights are judged, and found not comparable, as before classes.
  if (out.picked.empty() && !of_class.empty())
    out.picked = PickBaseline(earlier, request.spec, tonight, started_at);
  for (const HistorySession& s : out.picked) {
    const auto diffs = DiffEnvironments(s.manifest, manifest, allowed);
    if (std::none_of(diffs.begin(), diffs.end(), Blocks)) {
      out.accepted.push_back(s);
      out.latest_accepted = diffs;
    } else {
      out.rejected_by = diffs;
    }
  }
  return out;
}

GateOutcome GateFromHistory(HistoryStore& store, const nlohmann::json& manifest,
                            const std::vector<RunRecord>& records, const std::string& tonight_name,
                            const GateBaselineRequest& request, const GateOptions& options) {
  const std::string scenario =
      manifest.value("scenario", nlohmann::json::object()).value("name", "");
  GateOutcome out;
  out.baseline = PickGateBaseline(store.Sessions(scenario), manifest, request);
  const GateBaseline& b = out.baseline;
  if (b.picked.empty())
    throw std::invalid_argument(
        "gate: no baseline: " + store.name() + " holds " + std::to_string(b.earlier) +
        " session(s) of scenario " + scenario + " that started before " + tonight_name + " (" +
        BaselineClassText(b, request.any_class) + ") and --baseline " + request.spec_text +
        " picks none of them" +
        (b.other_class && !request.any_class ? "; --any-class takes every class's nights" : ""));
  CompareReport& report = out.report;
  if (b.accepted.empty()) {
    report.options.alpha = options.alpha;
    report.options.noise = options.noise;
    report.comparable = false;
    report.differences = b.rejected_by;
  } else {
    std::vector<std::vector<RunRecord>> nights;
    for (const HistorySession& s : b.accepted) nights.push_back(store.Records(s.id));
    report = JudgeTonight(nights, records, options);
    report.comparable = true;
    report.differences = b.latest_accepted;
  }
  report.base_name = "history " + request.spec_text + " (" + std::to_string(b.accepted.size()) +
                     " nights, " +
                     (request.any_class ? "every class" : "class " + b.tonight_class) + ")";
  report.cand_name = tonight_name;
  return out;
}

std::string BaselineClassText(const GateBaseline& b, bool any_class) {
  if (any_class) return "every fingerprint class (--any-class)";
  return "fingerprint class " + b.tonight_class + ": " + std::to_string(b.earlier - b.other_class) +
         " earlier session(s) of it, " + std::to_string(b.other_class) +
         " skipped as another class";
}

}  // namespace storbed
