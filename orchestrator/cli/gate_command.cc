#include "cli/gate_command.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <fstream>
#include <iostream>
#include <memory>

#include "cli/verdict_options.h"
#include "history/baseline.h"
#include "history/history_store.h"
#include "history/night_spread.h"
#include "reports/compare.h"
#include "reports/compare_input.h"
#include "reports/junit.h"
#include "reports/number_text.h"

namespace storbed {
namespace {

struct GateArgs : VerdictArgs {
  std::string results, db, baseline = "last:7", junit;
};

void WriteJunit(const std::string& path, const CompareReport& report, const std::string& suite,
                const std::string& timestamp) {
  std::ofstream out(path);
  out << JunitXml(report, suite, timestamp);
  if (!out.flush()) throw std::runtime_error(path + ": cannot write the JUnit file");
}

// One line on the bands the baseline's own night-to-night spread widened.
void SayWiderBands(const CompareReport& report, std::ostream& log) {
  size_t wider = 0, judged = 0;
  const MetricRow* widest = nullptr;
  for (const MetricRow& r : report.rows) {
    if (r.direction == Better::None || r.noise == 0) continue;
    ++judged;
    if (r.noise <= report.options.noise) continue;
    ++wider;
    if (!widest || r.noise > widest->noise) widest = &r;
  }
  if (!widest) return;
  log << "gate: the baseline nights' own spread widens the noise band of " << wider << " of "
      << judged << " judged metrics beyond +-" << FormatPercent(report.options.noise)
      << " (widest: " << widest->cell << " " << widest->metric << " +-"
      << FormatPercent(widest->noise) << ")\n";
}

int RunGate(const GateArgs& a) {
  const CompareOptions options = CheckedCompareOptions(a, "gate");
  const BaselineSpec spec = ParseBaseline(a.baseline);
  const std::vector<RunRecord> tonight = LoadCompareSide(a.results, "RESULTS");
  const nlohmann::json manifest = LoadCompareManifest(a.results, "RESULTS");
  HistoryStore store(a.db, false);
  const std::string scenario = manifest.value("scenario", nlohmann::json::object()).value("name", "");
  const std::string started_at = manifest.value("started_at", "");
  const std::vector<HistorySession> all = store.Sessions(scenario);
  const std::vector<HistorySession> picked =
      PickBaseline(all, spec, manifest.value("session", ""), started_at);
  if (picked.empty())
    throw std::invalid_argument("gate: no baseline: " + a.db + " holds " +
                                std::to_string(all.size()) + " session(s) of scenario " +
                                scenario + " and --baseline " + a.baseline +
                                " picks none that started before " + a.results);

  // Sessions whose environment differs only where --allow-diff says it may. storbed's own
  // revision moves from night to night by design (the history names it per night).
  std::vector<std::string> allowed = a.allow_diff;
  allowed.push_back("storbed.git_revision");
  std::vector<HistorySession> accepted;
  std::vector<EnvironmentDiff> rejected_by, latest_accepted;
  for (const HistorySession& s : picked) {
    const auto diffs = DiffEnvironments(s.manifest, manifest, allowed);
    if (std::none_of(diffs.begin(), diffs.end(), Blocks)) {
      accepted.push_back(s);
      latest_accepted = diffs;  // the latest accepted session's, to show
    } else {
      rejected_by = diffs;  // the latest rejected session's, to show
    }
  }
  CompareSides sides{"history " + a.baseline, a.results, {}, tonight};
  std::vector<std::vector<RunRecord>> nights;
  for (const HistorySession& s : accepted) {
    nights.push_back(store.Records(s.id));
    sides.base.insert(sides.base.end(), nights.back().begin(), nights.back().end());
  }
  CompareOptions judged = options;
  judged.noise_wider = NightToNightNoise(nights);
  CompareReport report;
  if (accepted.empty()) {
    report.base_name = sides.base_name;
    report.cand_name = sides.cand_name;
    report.comparable = false;
    report.differences = rejected_by;
  } else {
    report = Compare(sides, judged);
    report.comparable = true;
    report.differences = latest_accepted;
  }
  std::cerr << "gate: baseline " << a.baseline << ": " << picked.size() << " session(s) picked, "
            << accepted.size() << " with an environment the gate accepts";
  if (!accepted.empty())
    std::cerr << " (" << accepted.front().started_at << " .. " << accepted.back().started_at
              << ")";
  std::cerr << "\n";
  SayWiderBands(report, std::cerr);
  if (a.json) std::cout << CompareJson(report).dump(2) << "\n";
  else std::cout << RenderCompareText(report);
  if (!a.junit.empty()) WriteJunit(a.junit, report, "storbed gate " + scenario, started_at);
  return VerdictExit(report);
}

}  // namespace

CLI::App* AddGateCommand(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<GateArgs>();
  auto* cmd = app.add_subcommand(
      "gate", "Judge a results directory against a baseline from the history: exit 0 pass, "
              "4 a cell worse, 5 not comparable, 2 bad input.");
  cmd->add_option("results", args->results, "Tonight's results directory")->required();
  cmd->add_option("--history", args->db, "History database (SQLite)")->required();
  cmd->add_option("--baseline", args->baseline,
                  "last:N (the N latest sessions before tonight), rev:REVISION, or "
                  "date:FROM[..TO] (prefixes of ISO 8601 start times)")
      ->capture_default_str();
  cmd->add_option("--junit", args->junit, "Write JUnit XML here (one testcase per cell and metric)");
  AddVerdictOptions(*cmd, *args,
                    "An environment item (or prefix) that may differ from the baseline's");
  SetExitCallback(*cmd, exit_code, [args] { return RunGate(*args); });
  return cmd;
}

}  // namespace storbed
