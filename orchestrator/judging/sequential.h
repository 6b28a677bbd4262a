// Group-sequential verdicts: interleaved rounds looked at after every round, stopped when
// every test is conclusive or the budget of rounds is spent, with the error rates held
// across the looks (docs/compare.md, "Until conclusive"):
// - the boundary: Lan-DeMets alpha spending with the Pocock-type function
//   alpha * ln(1 + (e - 1) t), t = rounds / the plan's rounds. Each look's boundary comes
//   from numerical integration of the rounds' summed standardized log ratios (a random walk
//   under no change); the paired t test's p is held against the look's nominal level, the
//   usual conversion for an estimated spread (the calibration measures what it gives);
// - many tests (cells x metrics): Holm's step-down as a graphical procedure (Maurer and
//   Bretz 2013): every undecided test holds an equal share of alpha, and a test that
//   crosses its boundary passes its share on to the tests not yet rejected;
// - "no change": the repeated 90% interval (the nominal levels of a 0.10 spending) lies
//   inside the band at a look, from kMinEquivalenceRuns rounds on; it never sets an exit code;
// - the interval printed: the repeated 95% interval at the last look, which covers the
//   truth at every look at once, so it may be read whenever the run stopped;
// - out of reach: from half the plan on, rounds stop when no open test could be decided
//   within the plan at any shift in its plain 90% interval (StopsOutOfReach).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "judging/shift.h"
#include "judging/verdict.h"

namespace storbed {

inline constexpr const char* kSequentialBoundary =
    "Lan-DeMets alpha spending, Pocock-type alpha*ln(1+(e-1)t), a look after every round";
inline constexpr size_t kDefaultFirstLook = 5;
// Beyond this the boundaries' integration grid would grow past what a look may cost.
inline constexpr size_t kMaxSequentialRounds = 1000;

struct SequentialPlan {
  size_t max_rounds = 0;                  // the plan's rounds: the budget
  size_t first_look = kDefaultFirstLook;  // rounds of the first interim analysis
  bool operator==(const SequentialPlan&) const = default;
};

// The Pocock-type spending function: the share of `alpha` spent by information time t.
double PocockSpending(double t, double alpha);

// The nominal two-sided level of every look for a total two-sided `alpha` spent over the
// plan: element i is the look after first_look + i rounds. Throws std::invalid_argument for a
// plan without looks (max_rounds < first_look, first_look < 3) or beyond kMaxSequentialRounds.
const std::vector<double>& NominalLevels(const SequentialPlan& plan, double alpha);

// One test's paired results after each look taken: looks[i] from the rounds up to rounds[i].
struct SequentialMember {
  std::vector<size_t> rounds;
  std::vector<ShiftTest> looks;
  Better direction = Better::Higher;
};

struct SequentialJudgement {
  Verdict verdict = Verdict::Inconclusive;
  size_t decided_at = 0;  // the rounds of the look that decided it; 0 while open
  double p = 1;           // the paired test's p at the deciding (or last) look
  double level = 0;       // the nominal level it was held against there
  std::optional<LogInterval> rci95;  // the repeated 95% interval at the last look
  // Open, and at its spread no shift in its plain 90% interval would be decided within the
  // plan's rounds (RoundsToDecide at the interval's ends and at 0).
  bool out_of_reach = false;
  // Open: what more rounds would do ("about 6 more rounds would decide it", or that no
  // practical number would); the end of `detail`, kept apart for the progress line.
  std::string to_decide;
  std::string detail;
};

// Judges one family over the looks taken (every member has the same looks, in round
// order; a member whose runs failed in some round may lack that look). `rule.alpha` is the
// family-wise level, `rule.noise` the band.
std::vector<SequentialJudgement> JudgeSequentialFamily(
    const std::vector<SequentialMember>& family, const SequentialPlan& plan,
    const VerdictRule& rule);

// better, worse or no change.
bool Conclusive(Verdict v);

// Rounds stop early, undecided, once every open test has been out of reach at this many
// looks in a row, from half the plan's rounds on: waiting out the budget would not decide
// them. Stopping for futility never adds a false better or worse (it only ends the looks
// sooner), so the boundary is unchanged; what it may cost is power, which the calibration
// measures (storbed-calibrate sequential).
inline constexpr size_t kOutOfReachLooks = 2;
bool StopsOutOfReach(size_t round, size_t out_of_reach_looks_in_a_row, const SequentialPlan& plan);

// About how many rounds in all would decide an open test, at its spread and shift: to
// cross the band's edge (a shift outside it) or to fit the repeated interval inside it (a
// shift inside); nullopt when the shift sits on the edge or the spread is unknown.
std::optional<size_t> RoundsToDecide(const ShiftTest& last, const SequentialPlan& plan,
                                     const VerdictRule& rule, size_t tests);

}  // namespace storbed
