// The verdict rule, in one place for compare, gate and history: a family of tests (cells x
// primary metrics, or the secondary ladder metrics on their own) is corrected with Holm's
// step-down for the family-wise error rate, and each test becomes a verdict:
// - better / worse: the Holm-adjusted p of "the change lies inside the noise band" is
//   below alpha, in the metric's direction (so the change is beyond the band, not just
//   beyond 0);
// - no change: the 90% interval lies inside the band (two one-sided tests at 5%), from at
//   least 5 runs a side; never corrected, it only ever keeps an exit code at 0;
// - too few runs: the runs cannot give a p below alpha / tests, the level a lone change
//   must pass, and cannot show "no change" either; the detail says how many would;
// - inconclusive: none of these; the detail says what these runs can resolve and what a
//   10% change would need.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "judging/shift.h"

namespace storbed {

// Which way a metric improves: IOPS higher, latencies lower; None is shown, not judged.
enum class Better { Higher, Lower, None };

// WithinDrift and CannotJudge are the gate's (judging/night_model.h).
enum class Verdict {
  Better,
  Worse,
  NoChange,
  Inconclusive,
  TooFewRuns,
  SideBySide,
  WithinDrift,
  CannotJudge
};
// "better", "worse", "no change", "inconclusive", "too few runs", "side by side", "within
// drift", "cannot judge".
std::string ToString(Verdict v);

inline constexpr size_t kMinEquivalenceRuns = 5;
inline constexpr double kResolutionPower = 0.8;
// The expected power the runs-needed advice asks for, so that it delivers 80% (verdict.cc).
inline constexpr double kAdvicePower = 0.85;

struct VerdictRule {
  double alpha = 0.01;  // family-wise
  double noise = 0.02;  // relative: 0.02 = +-2%
};

// What is wrong with a rule given as --alpha and --noise (in percent), as the sentence
// "--alpha must be ..."; "" when nothing is. alpha is in (0, 0.5], noise in [0, 100).
// compare, gate and run --until-conclusive check their options with it.
std::string VerdictRuleProblem(double alpha, double noise_pct);

// What a test's runs can see, at the level a lone change must pass in its family.
struct Resolution {
  bool reachable = false;                         // a p below alpha / tests is possible at all
  size_t runs_to_reach = 0;                       // runs a side at which it becomes possible
  std::optional<double> shift;                    // |log change| found with 80% power
  std::optional<size_t> runs_for_5, runs_for_10;  // runs a side for 80% power at 5% and 10%
};

struct Judgement {
  Verdict verdict = Verdict::Inconclusive;
  std::optional<double> adjusted_p;  // Holm over the family
  std::string detail;
  Resolution resolution;
  std::optional<double> guard_power;  // the gate's: power to call the change it guards
};

struct FamilyMember {
  const ShiftTest* test = nullptr;
  Better direction = Better::Higher;
};

// Judges every member of one family (Holm over all of them) by `rule`.
std::vector<Judgement> JudgeFamily(const std::vector<FamilyMember>& family,
                                   const VerdictRule& rule);

// The resolution of one test in a family of `tests` tests at `rule` (JudgeFamily fills it).
Resolution ResolutionOf(const ShiftTest& t, size_t tests, const VerdictRule& rule);

// A relative change of `drop` (0.1 = 10%) as a log shift: -log(1 - drop), so a 10% change
// is a ratio of 0.90 down or 1.11 up.
double ChangeShift(double drop);

// "0.90 or 1.11": the two ratios a log shift stands for.
std::string RatioPair(double shift);

// `v` through printf `format`: the one number formatter of judging/'s sentences.
std::string FixedText(double v, const char* format);

}  // namespace storbed
