// The depth ladders of a results directory: each guest run beside the bare-metal run of
// the same cell and repeat, how to read each, and per cell the median over its repeats.
#pragma once

#include <string>
#include <vector>

#include "results/run_record.h"

namespace storbed {

// One ladder to show: a run and, for a guest run, the bare-metal run of the same job.
struct LadderPair {
  const RunRecord* run = nullptr;
  const RunRecord* bare_metal_twin = nullptr;  // null when there is none or run is bare metal
};

// True when `bare` is the bare-metal run of `guest`'s cell and repeat: the same job, the
// same repeat, and every matrix parameter the bare-metal run has (its backing's) equal
// in the guest run.
bool SameCellAndRepeat(const RunRecord& guest, const RunRecord& bare);

// Warm-ups left out: every guest run with a ladder in record order, paired with the
// bare-metal run of its cell and repeat (SameCellAndRepeat), none when that repeat has no
// bare-metal ladder; then the bare-metal runs no guest was paired with. Pointers into
// `records`.
std::vector<LadderPair> PairLadders(const std::vector<RunRecord>& records);

// The cells (cells.h) with more than one repeat that has a ladder, in first-seen order:
// the cell's name and its runs with a ladder. Pointers into `records`.
struct RepeatedCell {
  std::string cell;
  std::vector<const RunRecord*> runs;
};
std::vector<RepeatedCell> RepeatedLadderCells(const std::vector<RunRecord>& records);

// One block per pair of PairLadders, then one median block per RepeatedLadderCells cell.
std::string RenderLadders(const std::vector<RunRecord>& records);

}  // namespace storbed
