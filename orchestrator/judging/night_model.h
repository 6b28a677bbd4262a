// The gate's model: the night is the unit. Runs of one night share its conditions (the
// host's state, the TCG timer's slack), so the gate never pools runs of different nights as
// if independent. Each night is one level, the log of its runs' median; tonight's level is
// set against the baseline nights' levels with a Student t prediction interval
// (t with nights - 1 degrees of freedom, half-width t s sqrt(1 + 1/nights)): under no
// change tonight lands inside it as often as its level says, whatever the night-to-night
// drift, because the drift is what s measures.
//
// Verdicts (JudgeNights, on top of JudgeFamily's Holm correction):
// - better / worse / no change as compare's rule, on this interval;
// - within drift: nothing beyond the band, the gate had 80% power to see a change of the
//   size it guards (10% by default), and the drift is wider than --noise: "within
//   night-to-night drift (+-x%)", never "no change";
// - cannot judge: the gate could not have seen such a change (power below 80%: too few or
//   too noisy baseline nights, or fewer than 3): the gate does not pass silently.
#pragma once

#include <vector>

#include "judging/shift.h"
#include "judging/verdict.h"

namespace storbed {

inline constexpr size_t kMinBaselineNights = 3;

// Tonight's runs against the baseline nights' runs (each night's values; nights without
// values are left out): a ShiftTest of design Night, n_base the nights, n_cand tonight's
// runs. Values must be > 0 and finite (else std::invalid_argument).
ShiftTest NightShift(const std::vector<std::vector<double>>& nights,
                     const std::vector<double>& tonight, Band band);

// The 95% half-width (log) of the band one more night's level lands in by drift alone.
double DriftHalfWidth(const ShiftTest& night);

// The gate's verdicts for one family of night tests, guarding against changes of
// `guard` (0.10 = 10%).
std::vector<Judgement> JudgeNights(const std::vector<FamilyMember>& family, const VerdictRule& rule,
                                   double guard);

// The power a family's night test has to call a change of `guard` (0 with too few nights
// or no spread).
double GuardPower(const ShiftTest& night, size_t tests, const VerdictRule& rule, double guard);

}  // namespace storbed
