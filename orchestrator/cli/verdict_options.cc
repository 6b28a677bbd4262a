#include "cli/verdict_options.h"

#include <CLI/CLI.hpp>
#include <stdexcept>

#include "judging/verdict.h"

namespace storbed {

void AddVerdictOptions(CLI::App& cmd, VerdictArgs& args, const std::string& allow_diff_help) {
  cmd.add_option("--alpha", args.alpha, "Significance level of the test")
      ->capture_default_str()
      ->each([&args](const std::string&) { args.alpha_given = true; });
  cmd.add_option("--noise", args.noise_pct, "Changes within +-this percent are no change")
      ->capture_default_str()
      ->each([&args](const std::string&) { args.noise_given = true; });
  cmd.add_flag("--json", args.json, "One JSON object per cell and metric");
  cmd.add_option("--allow-diff", args.allow_diff, allow_diff_help)->allow_extra_args(false);
}

CompareOptions CheckedCompareOptions(const VerdictArgs& args, const std::string& command,
                                     const std::string& by) {
  if (const std::string why = VerdictRuleProblem(args.alpha, args.noise_pct); !why.empty())
    throw std::invalid_argument(command + ": " + why);
  CompareOptions options;
  options.alpha = args.alpha;
  options.noise = args.noise_pct / 100;
  options.by = by;
  return options;
}

int VerdictExit(const CompareReport& report) {
  if (report.comparable == false) return kExitNotComparable;
  return report.AnyWorse() ? kExitWorse : kExitOk;
}

void SetExitCallback(CLI::App& cmd, int* exit_code, std::function<int()> run) {
  cmd.callback([exit_code, run = std::move(run)] { *exit_code = run(); });
}

}  // namespace storbed
