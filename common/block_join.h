// Joins one block layer's traced events to the IOs that caused them, on one clock: a
// request belongs to an IO when its sectors overlap the IO's, it goes the same way, and it
// was seen inside the IO's window (submitted .. completion seen). Used for the guest's block
// layer and bare metal's (the application's IOs), and for the host device under QEMU (QEMU's
// backend requests, their offsets turned into the disk's sectors).
// - A request that overlaps two IOs whose windows both hold it and whose sectors are
//   disjoint carried both (the block layer merged them): each gets its times, marked shared.
// - An event two IOs could own (the same sectors, both in flight) makes both ambiguous:
//   counted, left out, never guessed.
// - An IO is joined when it is not ambiguous, a request of it was issued, and its completed
//   requests cover all its sectors; else missing (an event was lost or never came).
#pragma once

#include <cstdint>
#include <vector>

#include "block_trace_event.h"

namespace storbed {

struct IoWindow {
  uint64_t sector = 0, sectors = 0;  // 512-byte sectors of the traced disk
  bool write = false;
  uint64_t begin_ns = 0, end_ns = 0;  // the trace clock
};

struct BlockTimes {
  // Per BlockEventKind: the first event of that kind, but the last completion (an IO split
  // into requests is done when its last one is); 0 = none seen.
  uint64_t at[kBlockEventKinds] = {};
  uint32_t requests = 0;  // completed requests that carried (part of) the IO
  bool shared = false;    // a request of it carried another IO too
  uint64_t At(BlockEventKind k) const { return at[int(k)]; }
};

enum class JoinState : uint8_t { Joined, Missing, Ambiguous };

struct BlockJoin {
  std::vector<BlockTimes> times;  // per IO, in the order given
  std::vector<JoinState> state;
  size_t joined = 0, missing = 0, ambiguous = 0;
  size_t events = 0;            // data events of the traced disk
  size_t unmatched_events = 0;  // of those, events no IO's window and sectors hold
};

// `events` of any disk and kind, in any order; only data events of MAJOR:MINOR count.
// `slack_ns` widens each window on both sides (the text trace rounds times down to the
// microsecond).
BlockJoin JoinBlockEvents(const std::vector<IoWindow>& ios, const std::vector<BlockEvent>& events,
                          uint32_t major, uint32_t minor, uint64_t slack_ns);

}  // namespace storbed
