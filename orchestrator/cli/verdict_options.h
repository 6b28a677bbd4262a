// What `storbed compare` and `storbed gate` share: the verdict options (--alpha, --noise,
// --json, --allow-diff), their check, the verdict's exit code, and how a subcommand that runs
// inside app.parse() hands back its exit code.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "exit_codes.h"
#include "reports/compare.h"

namespace CLI {
class App;
}  // namespace CLI

namespace storbed {

struct VerdictArgs {
  double alpha = 0.01;
  double noise_pct = 2;
  bool alpha_given = false, noise_given = false;  // on the command line, not the defaults
  bool json = false;
  std::vector<std::string> allow_diff;
};

// Adds --alpha, --noise, --json and --allow-diff (described by `allow_diff_help`).
void AddVerdictOptions(CLI::App& cmd, VerdictArgs& args, const std::string& allow_diff_help);

// The options for Compare(); throws std::invalid_argument ("<command>: --alpha must be ...")
// for an alpha or noise that VerdictRuleProblem (judging/verdict.h) refuses.
CompareOptions CheckedCompareOptions(const VerdictArgs& args, const std::string& command,
                                     const std::string& by = "");

// 0 when no row is worse, kExitWorse when one is, kExitNotComparable when the gate said so.
int VerdictExit(const CompareReport& report);

// Sets `cmd`'s callback: *exit_code = run(). What run() throws comes out of app.parse(), to
// RunMain's one mapping of errors to exit codes.
void SetExitCallback(CLI::App& cmd, int* exit_code, std::function<int()> run);

}  // namespace storbed
