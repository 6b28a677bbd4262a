#include "cli/gate_command.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <iostream>
#include <memory>

#include "cli/history_command.h"
#include "cli/verdict_options.h"
#include "history/baseline.h"
#include "history/gate_nights.h"
#include "history/history_gate.h"
#include "history/history_store.h"
#include "reports/compare.h"
#include "reports/compare_input.h"
#include "reports/junit.h"
#include "reports/number_text.h"
#include "reports/report_formats.h"
#include "terminal_text.h"

namespace storbed {
namespace {

struct GateArgs : VerdictArgs {
  std::string results, db, baseline = "last:7", junit;
  double guard_pct = 10;
  bool any_class = false;
};

// --junit must not land on what the gate reads: tonight's results or the history file.
void CheckJunitPath(const GateArgs& a) {
  CheckOutputPath("the JUnit file", "the gate", a.results, a.junit);
  if (SameHistoryFile(a.junit, a.db))
    throw std::invalid_argument("gate: --junit " + a.junit + " is the history database " + a.db +
                                ": give the JUnit file another path");
}

// Through a temporary file and a rename: a failed write leaves the last JUnit file whole.
void WriteJunit(const std::string& path, const CompareReport& report, const std::string& suite,
                const std::string& timestamp) {
  WriteOutputFile(path, JunitXml(report, suite, timestamp), "the JUnit file");
}

// One line on what the gate could see: the power to call a change of the guarded size,
// over the primary rows that have one.
void SayPower(const CompareReport& report, double guard, std::ostream& log) {
  size_t cannot = 0, judged = 0;
  for (const MetricRow& r : report.rows) {
    if (r.role != MetricRole::Primary) continue;
    ++judged;
    cannot += r.verdict == "cannot judge";
  }
  log << "gate: " << report.primary.tests << " primary tests, Holm at alpha "
      << FormatNumber(report.options.alpha, "%g") << "; " << cannot << " of " << judged
      << " primary rows cannot judge a " << FormatPercent(guard) << " change";
  if (cannot) log << " (exit " << kExitCannotJudge << " unless a row is worse)";
  log << "\n";
}

int RunGate(const GateArgs& a) {
  const CompareOptions options = CheckedCompareOptions(a, "gate");
  if (!(a.guard_pct > 0 && a.guard_pct < 100))
    throw std::invalid_argument("gate: --guard must be a percentage above 0 and below 100");
  const GateBaselineRequest request{ParseBaseline(a.baseline), a.baseline, a.allow_diff,
                                    a.any_class};
  if (!a.junit.empty()) CheckJunitPath(a);
  const std::vector<RunRecord> tonight = LoadCompareSide(a.results, "RESULTS");
  const nlohmann::json manifest = LoadCompareManifest(a.results, "RESULTS");
  HistoryStore store(a.db, HistoryStore::Open::Existing);
  GateOutcome gate = GateFromHistory(store, manifest, tonight, a.results, request,
                                     {options.alpha, options.noise, a.guard_pct / 100});
  const GateBaseline& b = gate.baseline;
  CompareReport& report = gate.report;
  if (!report.comparable) report.options = options;  // every option, as compare shows them
  std::cerr << "gate: baseline " << a.baseline << " of " << BaselineClassText(b, a.any_class)
            << ": " << b.picked.size() << " session(s) picked, " << b.accepted.size()
            << " with an environment the gate accepts";
  if (!b.accepted.empty())
    std::cerr << " (" << b.accepted.front().started_at << " .. " << b.accepted.back().started_at
              << ")";
  std::cerr << "\n";
  if (!b.accepted.empty()) SayPower(report, a.guard_pct / 100, std::cerr);
  if (a.json) {
    nlohmann::json out = CompareJson(report);
    out["baseline_class"] = {
        {"class", b.tonight_class},      {"any_class", a.any_class},
        {"earlier_sessions", b.earlier}, {"other_class_skipped", b.other_class},
        {"picked", b.picked.size()},     {"accepted", b.accepted.size()}};
    std::cout << out.dump(2) << "\n";
  } else {
    std::cout << EscapeControlChars(RenderCompareText(report));
  }
  const std::string scenario =
      manifest.value("scenario", nlohmann::json::object()).value("name", "");
  if (!a.junit.empty())
    WriteJunit(a.junit, report, "storbed gate " + scenario, manifest.value("started_at", ""));
  const int exit = VerdictExit(report);
  return exit == 0 && AnyCannotJudge(report) ? kExitCannotJudge : exit;
}

}  // namespace

CLI::App* AddGateCommand(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<GateArgs>();
  auto* cmd = app.add_subcommand(
      "gate",
      "Judge a results directory against a baseline from the history, night by "
      "night: exit 0 pass, 4 a cell worse, 5 not comparable, 6 cannot judge (the "
      "baseline could not show a change of --guard), 2 bad input.");
  cmd->add_option("results", args->results, "Tonight's results directory")->required();
  cmd->add_option("--history", args->db, kHistoryDbHelp)->required();
  cmd->add_option("--baseline", args->baseline,
                  "last:N (the N latest sessions before tonight), rev:REVISION, or "
                  "date:FROM[..TO] (prefixes of ISO 8601 start times)")
      ->capture_default_str();
  cmd->add_option("--guard", args->guard_pct,
                  "The change in percent the gate must be able to see with 80% power; where "
                  "the baseline nights cannot show it, the row is 'cannot judge' (exit 6)")
      ->capture_default_str();
  cmd->add_flag("--any-class", args->any_class,
                "Baseline nights of every fingerprint class, not only tonight's (a lab's "
                "store holds every host's nights; the environment check still applies)");
  cmd->add_option("--junit", args->junit,
                  "Write JUnit XML here (one testcase per cell and metric)");
  AddVerdictOptions(*cmd, *args,
                    "An environment item (or prefix) that may differ from the baseline's");
  SetExitCallback(*cmd, exit_code, [args] { return RunGate(*args); });
  return cmd;
}

}  // namespace storbed
