#include "cli/compare_command.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <iostream>
#include <memory>
#include <optional>
#include <stdexcept>
#include <tuple>

#include "cli/verdict_options.h"
#include "reports/compare.h"
#include "reports/compare_input.h"
#include "terminal_text.h"

namespace storbed {
namespace {

struct CompareArgs : VerdictArgs {
  std::string base, cand, by, pairs = "base";
};

// The manifest labels of the guest machines the runs ran on ("machine-nvme-b2" -> "nvme-b2").
std::vector<std::string> MachineLabels(const std::vector<RunRecord>& runs) {
  std::vector<std::string> labels;
  const std::string prefix = "machine-";
  for (const RunRecord& r : runs)
    if (r.machine.rfind(prefix, 0) == 0) labels.push_back(r.machine.substr(prefix.size()));
  return labels;
}

// Prints the reports (one pair, or the levels with their ranking) and returns the exit code:
// bad input when no primary row could reach any verdict.
int Finish(const CompareArgs& a, const std::optional<CompareLevels>& levels,
           const std::vector<CompareReport>& reports) {
  if (std::all_of(reports.begin(), reports.end(),
                  [](const CompareReport& r) { return r.cells.empty(); }))
    throw std::invalid_argument("compare: no cell (target x job x parameters) is on both sides");
  const std::vector<RankingRow> ranking =
      levels ? RankLevels(*levels, reports) : std::vector<RankingRow>{};
  if (a.json)
    std::cout << (levels && levels->names.size() > 2 ? LevelsJson(*levels, reports, ranking)
                                                     : CompareJson(reports.front()))
                     .dump(2)
              << "\n";
  else if (levels && levels->names.size() > 2)
    std::cout << EscapeControlChars(RenderLevelsText(*levels, reports, ranking));
  else
    std::cout << EscapeControlChars(RenderCompareText(reports.front()));
  if (std::none_of(reports.begin(), reports.end(),
                   [](const CompareReport& r) { return r.AnyJudged(); })) {
    // The table above shows the medians; no primary row could reach any verdict.
    std::cerr << "storbed: compare: no cell has the runs a verdict needs (every primary row is "
                 "\"too few runs\"; each says how many a side would reach one)\n";
    return kExitBadInput;
  }
  int exit = 0;
  for (const CompareReport& r : reports) exit = std::max(exit, VerdictExit(r));
  return exit;
}

// An interleaved session's rounds are blocks: each repeat boots every machine once.
bool Interleaved(const nlohmann::json& manifest) {
  const nlohmann::json scenario = manifest.value("scenario", nlohmann::json::object());
  return scenario.is_object() && scenario.value("order", "") == "interleaved";
}

// `storbed run --until-conclusive` gathered the rounds with looks: its manifest's
// "sequential" plan (execute/round_gate.h), checked; nullopt for any other run.
std::optional<SequentialPlan> SequentialPlanOf(const nlohmann::json& manifest,
                                               const std::string& dir) {
  const auto it = manifest.find("sequential");
  if (it == manifest.end() || it->is_null()) return std::nullopt;
  const std::string where = dir + "/manifest.json: sequential";
  if (!it->is_object()) throw std::invalid_argument(where + ": not an object");
  SequentialPlan plan;
  for (const auto& [field, value] :
       {std::pair<const char*, size_t*>{"max_rounds", &plan.max_rounds},
        std::pair<const char*, size_t*>{"first_look", &plan.first_look}}) {
    const auto f = it->find(field);
    if (f == it->end() || !f->is_number_unsigned())
      throw std::invalid_argument(where + "." + field + ": missing or not a whole number");
    *value = f->get<size_t>();
  }
  try {
    NominalLevels(plan, 0.05);  // refuses a plan without looks, naming the numbers
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(where + ": " + e.what());
  }
  return plan;
}

// The rounds stopped by the run's alpha and noise band: judge with the same ones unless the
// command line names others.
void TakeRecordedLevels(const nlohmann::json& manifest, const CompareArgs& a,
                        CompareOptions* options) {
  const nlohmann::json& seq = manifest["sequential"];
  const std::string where = a.base + "/manifest.json: sequential.";
  for (const auto& [field, given, value, low] :
       {std::tuple<const char*, bool, double*, double>{"alpha", a.alpha_given, &options->alpha,
                                                       1e-9},
        {"noise", a.noise_given, &options->noise, 0}}) {
    const auto f = seq.find(field);
    if (given || f == seq.end()) continue;
    if (!f->is_number() || !(f->get<double>() >= low && f->get<double>() < 1))
      throw std::invalid_argument(where + field + ": not a number between 0 and 1");
    *value = f->get<double>();
  }
}

void CheckMeasured(const std::vector<RunRecord>& side, const std::string& name) {
  if (std::none_of(side.begin(), side.end(),
                   [](const RunRecord& r) { return r.status != RunStatus::Warmup; }))
    throw std::invalid_argument("compare: " + name +
                                ": no measured runs (only warm-ups, or nothing after the split)");
}

// Every level of --by: each against BASE (or every pair), one family over all of them.
int CompareLevelsOf(const CompareArgs& a, const CompareOptions& base_options) {
  if (!a.cand.empty())
    throw std::invalid_argument("compare: --by splits one directory; give BASE only");
  const std::vector<RunRecord> records = LoadCompareSide(a.base, "BASE");
  const nlohmann::json manifest = LoadCompareManifest(a.base, "BASE");
  CompareOptions options = base_options;
  options.sequential = SequentialPlanOf(manifest, a.base);
  if (options.sequential) TakeRecordedLevels(manifest, a, &options);
  CompareLevels levels =
      SplitLevels(records, a.by, DeclaredValues(manifest.value("scenario", nlohmann::json()), a.by),
                  Interleaved(manifest));
  for (size_t i = 0; i < levels.names.size(); ++i) CheckMeasured(levels.runs[i], levels.names[i]);
  std::vector<CompareSides> pairs = levels.Pairs(options.all_pairs);
  for (CompareSides& p : pairs) {
    p.base_name = a.base + " " + p.base_name;
    p.cand_name = a.base + " " + p.cand_name;
  }
  std::vector<CompareReport> reports = CompareAll(pairs, options);
  for (size_t i = 0; i < reports.size(); ++i) {
    reports[i].differences = DiffSidesOfOneRun(manifest, MachineLabels(pairs[i].base),
                                               MachineLabels(pairs[i].cand), a.by, a.allow_diff);
    reports[i].comparable =
        std::none_of(reports[i].differences.begin(), reports[i].differences.end(), Blocks);
  }
  return Finish(a, levels, reports);
}

int RunCompare(const CompareArgs& a) {
  CompareOptions options = CheckedCompareOptions(a, "compare", a.by);
  if (a.pairs != "base" && a.pairs != "all")
    throw std::invalid_argument("compare: --pairs takes base or all, not " + a.pairs);
  options.all_pairs = a.pairs == "all";
  if (!a.by.empty()) return CompareLevelsOf(a, options);
  // An adaptive run's directory alone: the field it compared.
  if (a.cand.empty() && !a.base.empty()) {
    const nlohmann::json manifest = LoadCompareManifest(a.base, "BASE");
    const auto it = manifest.find("sequential");
    if (it != manifest.end() && it->is_object() && it->contains("by") && (*it)["by"].is_string()) {
      CompareArgs with_by = a;
      with_by.by = (*it)["by"].get<std::string>();
      options.by = with_by.by;
      return CompareLevelsOf(with_by, options);
    }
  }
  if (a.cand.empty())
    throw std::invalid_argument("compare: give BASE and CAND directories, or one with --by");
  const CompareSides sides{a.base, a.cand, LoadCompareSide(a.base, "BASE"),
                           LoadCompareSide(a.cand, "CAND")};
  CheckMeasured(sides.base, sides.base_name);
  CheckMeasured(sides.cand, sides.cand_name);
  CompareReport report = Compare(sides, options);
  report.differences = DiffEnvironments(LoadCompareManifest(a.base, "BASE"),
                                        LoadCompareManifest(a.cand, "CAND"), a.allow_diff);
  report.comparable = std::none_of(report.differences.begin(), report.differences.end(), Blocks);
  return Finish(a, std::nullopt, {report});
}

}  // namespace

CLI::App* AddCompareCommand(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<CompareArgs>();
  auto* cmd = app.add_subcommand(
      "compare",
      "Compare two results directories (or one split by a field into two or more "
      "levels): per cell and metric, the ratio with a 95% CI, the test, Holm's "
      "correction over the primary metrics, and a verdict.");
  cmd->add_option("base", args->base, "BASE results directory")->required();
  cmd->add_option("cand", args->cand, "CAND results directory (not with --by)");
  cmd->add_option("--by", args->by,
                  "Split BASE's runs into levels by this field (two or more): targets, "
                  "machine.kernel, disk.cache, job.read_ahead_kb, any matrix field; the first "
                  "declared value is BASE");
  cmd->add_option("--pairs", args->pairs,
                  "With --by and more than two levels: base (every level against BASE) or all "
                  "(every pair); the correction spans them all")
      ->capture_default_str();
  AddVerdictOptions(*cmd, *args,
                    "An environment item (or prefix: machine.nvme) that may differ: the factor "
                    "compared (repeatable)");
  SetExitCallback(*cmd, exit_code, [args] { return RunCompare(*args); });
  return cmd;
}

}  // namespace storbed
