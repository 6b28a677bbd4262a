// How far tonight may land from its baseline by night-to-night drift alone. Runs within a
// night share that night's conditions, so pooling the baseline's nights into one sample
// understates how much a new night moves even when nothing changed; the gate widens its
// noise band by this.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "results/run_record.h"

namespace storbed {

// Standard deviations of the nights' medians a new night may move by drift alone: about
// a 95% band when nights vary normally. A Student t quantile would be exact for known
// normal nights but is 9.9 at 3 nights, which would hide any change a short baseline
// could otherwise show; 2 is the band the A/A bench measures (bench/history_gate_aa.sh).
inline constexpr double kNightSpreadFactor = 2;

// Per cell and metric (keyed NoiseKey(cell, metric)), from the medians of `nights` (each
// night's records): kNightSpreadFactor x s x sqrt(1 + 1/n) relative to their mean, the
// half-width of a prediction band for one more night's median. Only where at least 2
// nights measured the metric; metrics without a better direction are left out.
std::map<std::string, double> NightToNightNoise(const std::vector<std::vector<RunRecord>>& nights);

}  // namespace storbed
