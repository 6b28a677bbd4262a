#include "cli/compare_command.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <iostream>
#include <memory>
#include <stdexcept>

#include "cli/verdict_options.h"
#include "reports/compare.h"
#include "reports/compare_input.h"

namespace storbed {
namespace {

struct CompareArgs : VerdictArgs {
  std::string base, cand, by;
};

// The manifest labels of the guest machines the runs ran on ("machine-nvme-b2" -> "nvme-b2").
std::vector<std::string> MachineLabels(const std::vector<RunRecord>& runs) {
  std::vector<std::string> labels;
  const std::string prefix = "machine-";
  for (const RunRecord& r : runs)
    if (r.machine.rfind(prefix, 0) == 0) labels.push_back(r.machine.substr(prefix.size()));
  return labels;
}

CompareSides SidesFor(const CompareArgs& a) {
  if (!a.by.empty()) {
    if (!a.cand.empty())
      throw std::invalid_argument("compare: --by splits one directory; give BASE only");
    const std::vector<RunRecord> records = LoadCompareSide(a.base, "BASE");
    CompareSides sides =
        SplitBy(records, a.by,
                DeclaredValues(
                    LoadCompareManifest(a.base, "BASE").value("scenario", nlohmann::json()), a.by));
    sides.base_name = a.base + " " + sides.base_name;
    sides.cand_name = a.base + " " + sides.cand_name;
    return sides;
  }
  if (a.cand.empty())
    throw std::invalid_argument("compare: give BASE and CAND directories, or one with --by");
  return {a.base, a.cand, LoadCompareSide(a.base, "BASE"), LoadCompareSide(a.cand, "CAND")};
}

int RunCompare(const CompareArgs& a) {
  const CompareOptions options = CheckedCompareOptions(a, "compare", a.by);
  const CompareSides sides = SidesFor(a);
  for (const auto* side : {&sides.base, &sides.cand})
    if (std::none_of(side->begin(), side->end(),
                     [](const RunRecord& r) { return r.status != RunStatus::Warmup; }))
      throw std::invalid_argument(
          "compare: " + (side == &sides.base ? sides.base_name : sides.cand_name) +
          ": no measured runs (only warm-ups, or nothing after the split)");
  CompareReport report =
      Compare(sides, options);
  if (a.by.empty())
    report.differences = DiffEnvironments(LoadCompareManifest(a.base, "BASE"),
                                          LoadCompareManifest(a.cand, "CAND"), a.allow_diff);
  else
    report.differences =
        DiffSidesOfOneRun(LoadCompareManifest(a.base, "BASE"), MachineLabels(sides.base),
                          MachineLabels(sides.cand), a.by, a.allow_diff);
  report.comparable = std::none_of(report.differences.begin(), report.differences.end(), Blocks);
  if (report.cells.empty())
    throw std::invalid_argument("compare: no cell (target x job x parameters) is on both sides");
  const bool any_judged = std::any_of(report.cells.begin(), report.cells.end(), [](const auto& c) {
    return std::min(c.n_base, c.n_cand) >= kMinRunsPerSide;
  });
  if (a.json) std::cout << CompareJson(report).dump(2) << "\n";
  else std::cout << RenderCompareText(report);
  if (!any_judged) {
    // The table above shows the medians; with no cell at 3 runs a side nothing was judged.
    std::cerr << "storbed: compare: every cell has fewer than " << kMinRunsPerSide
              << " successful runs on a side: no verdict (set repeats to 3 or more)\n";
    return kExitBadInput;
  }
  return VerdictExit(report);
}

}  // namespace

CLI::App* AddCompareCommand(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<CompareArgs>();
  auto* cmd = app.add_subcommand(
      "compare", "Compare two results directories (or one split by a field): per cell and "
                 "metric, the ratio of medians with a 95% CI, Mann-Whitney U, and a verdict.");
  cmd->add_option("base", args->base, "BASE results directory")->required();
  cmd->add_option("cand", args->cand, "CAND results directory (not with --by)");
  cmd->add_option("--by", args->by,
                  "Split BASE's runs into the two sides by this field: targets, machine.kernel, "
                  "disk.cache, job.read_ahead_kb, any matrix field");
  AddVerdictOptions(*cmd, *args,
                    "An environment item (or prefix: machine.nvme) that may differ: the factor "
                    "compared (repeatable)");
  SetExitCallback(*cmd, exit_code, [args] { return RunCompare(*args); });
  return cmd;
}

}  // namespace storbed
