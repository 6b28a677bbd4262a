// How to read one depth ladder: is a layer capping the in-flight count (a cap), or do
// the IOs just spend their time at different layers (a time split)? Which steps between
// rungs compare like with like, and which are "not comparable" with the reason. And the
// largest depth step, named only when it is larger than the rungs' intervals and bounds.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ladder.h"

namespace storbed {

// The upper layer holds more than N for at least this share of the window...
inline constexpr double kCapUpperShare = 0.5;
// ...while the lower one never exceeds N and sits at N for at least this share: a cap
// holds the lower layer at N whenever the upper has more to give, a time split lets it
// wander below its peak.
inline constexpr double kCapLowerAtShare = 0.25;
// Point samples a sampled lower layer needs before "never exceeds N" means anything.
inline constexpr uint64_t kCapMinSamples = 10;

// Two consecutive measured rungs. Not comparable when the lower one served more than 10%
// more requests than the upper issued (journal, flushes, readahead, split requests,
// another tenant; a smaller excess is named in extra_work only), or when a figure between them
// would be impossible (a negative latency added, a lower rung deeper than the upper beyond their
// intervals).
struct StepComparison {
  const LayerStats* upper = nullptr;
  const LayerStats* lower = nullptr;
  bool depth_comparable = true;
  bool latency_comparable = true;       // false too when either has no latency
  std::string reason;                   // why not, when either is false
  bool lower_deeper = false;            // deeper than the upper beyond both rungs' uncertainty
  std::vector<std::string> extra_work;  // "12 flushes/s the application did not issue"
};
std::vector<StepComparison> CompareSteps(const Ladder& ladder);

struct CapFinding {
  std::string layer;  // the capped (lower) layer
  std::string above;  // the layer above it that had more to give
  double n = 0;
  double upper_share_above = 0;  // share of the window the upper held more than n
  double lower_share_at = 0;     // share the lower sat at n
  std::string lower_basis;       // "exact" or "250 samples"
  std::string cause;             // "guest nr_requests = 4", or "" when not known
};

struct LadderReading {
  bool qd1 = false;  // one IO in flight at most: only a time split applies
  std::optional<CapFinding> cap;
  std::string headline;    // "capped at 4 at ..." or "no cap: each IO spends ..."
  std::string time_split;  // the split itself (in the headline when no cap)
  std::vector<std::string>
      steps;               // "the application adds 12.3 us above ..." / "... not comparable: ..."
  std::string depth_step;  // the largest depth step, or why none is named
  std::vector<std::string> extra_work;  // "<layer>: <work>", each once
};

// Reads `ladder`. Never throws; a ladder with fewer than two measured rungs gets a
// headline that says so.
LadderReading ReadLadder(const Ladder& ladder);

// How far a rung's depth may be off, for judging whether two rungs differ: its 95%
// interval plus its bound (half widths); 0 for an exact integral; infinite when its point
// samples gave no interval, so no difference is claimed beyond it.
double DepthNoise(const LayerStats& l);

// "1.3 +/- 0.33 (95%, 209 samples)", "31.8 +/- 0.00 (bound)", "0.28 (no interval)", or
// the plain depth when exact.
std::string DepthWithInterval(const LayerStats& l);

}  // namespace storbed
