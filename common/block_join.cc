#include "block_join.h"

#include <algorithm>
#include <numeric>

namespace storbed {
namespace {

bool Overlap(uint64_t a, uint64_t an, uint64_t b, uint64_t bn) { return a < b + bn && b < a + an; }

uint64_t OverlapLength(uint64_t a, uint64_t an, uint64_t b, uint64_t bn) {
  const uint64_t lo = std::max(a, b), hi = std::min(a + an, b + bn);
  return hi > lo ? hi - lo : 0;
}

}  // namespace

BlockJoin JoinBlockEvents(const std::vector<IoWindow>& ios, const std::vector<BlockEvent>& events,
                          uint32_t major, uint32_t minor, uint64_t slack_ns) {
  BlockJoin j;
  j.times.resize(ios.size());
  std::vector<uint64_t> covered(ios.size(), 0);
  std::vector<bool> ambiguous(ios.size(), false);
  // IOs by first sector, to find those an event's sectors overlap.
  std::vector<size_t> by_sector(ios.size());
  std::iota(by_sector.begin(), by_sector.end(), 0);
  std::sort(by_sector.begin(), by_sector.end(),
            [&](size_t a, size_t b) { return ios[a].sector < ios[b].sector; });
  uint64_t longest = 0;
  for (const IoWindow& io : ios) longest = std::max(longest, io.sectors);

  std::vector<size_t> owners;
  for (const BlockEvent& e : events) {
    if (!e.data || e.major != major || e.minor != minor) continue;
    ++j.events;
    owners.clear();
    const uint64_t from = e.sector >= longest ? e.sector - longest + 1 : 0;
    auto it = std::lower_bound(by_sector.begin(), by_sector.end(), from,
                               [&](size_t i, uint64_t s) { return ios[i].sector < s; });
    for (; it != by_sector.end() && ios[*it].sector < e.sector + e.sectors; ++it) {
      const IoWindow& io = ios[*it];
      if (io.write != e.write || !Overlap(io.sector, io.sectors, e.sector, e.sectors)) continue;
      if (e.time_ns + slack_ns < io.begin_ns || e.time_ns > io.end_ns + slack_ns) continue;
      owners.push_back(*it);
    }
    if (owners.empty()) {
      ++j.unmatched_events;
      continue;
    }
    // Owners whose sectors overlap each other cannot both have this request: ambiguous.
    bool clash = false;
    for (size_t a = 0; a < owners.size() && !clash; ++a)
      for (size_t b = a + 1; b < owners.size() && !clash; ++b)
        clash = Overlap(ios[owners[a]].sector, ios[owners[a]].sectors, ios[owners[b]].sector,
                        ios[owners[b]].sectors);
    for (const size_t i : owners) {
      if (clash) {
        ambiguous[i] = true;
        continue;
      }
      BlockTimes& t = j.times[i];
      uint64_t& at = t.at[int(e.kind)];
      if (e.kind == BlockEventKind::RqComplete) {
        at = std::max(at, e.time_ns);
        ++t.requests;
        covered[i] += OverlapLength(ios[i].sector, ios[i].sectors, e.sector, e.sectors);
      } else if (at == 0 || e.time_ns < at) {
        at = e.time_ns;
      }
      if (owners.size() > 1) t.shared = true;
    }
  }
  j.state.resize(ios.size());
  for (size_t i = 0; i < ios.size(); ++i) {
    if (ambiguous[i]) {
      j.state[i] = JoinState::Ambiguous;
      ++j.ambiguous;
    } else if (j.times[i].At(BlockEventKind::RqIssue) != 0 && covered[i] >= ios[i].sectors) {
      j.state[i] = JoinState::Joined;
      ++j.joined;
    } else {
      j.state[i] = JoinState::Missing;
      ++j.missing;
    }
  }
  return j;
}

}  // namespace storbed
