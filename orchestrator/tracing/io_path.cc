#include "tracing/io_path.h"

#include <algorithm>
#include <map>
#include <numeric>

#include "block_join.h"

namespace storbed {
namespace {

// Both traces print microseconds, rounded down.
constexpr uint64_t kResolutionNs = 1000;
constexpr uint64_t kSlackNs = 2 * kResolutionNs;

uint64_t OrZero(uint64_t t, int64_t shift) { return t ? uint64_t(int64_t(t) + shift) : 0; }

bool Overlap(uint64_t a, uint64_t an, uint64_t b, uint64_t bn) { return a < b + bn && b < a + an; }

// QEMU's requests on the host's monotonic clock, those that can be joined (picked up and
// completed, not ambiguous), indexed by first sector.
struct QemuIndex {
  std::vector<QemuRequest> req;
  std::vector<size_t> by_sector;
  uint64_t longest = 0;
};

QemuIndex IndexQemu(const QemuRequests& q, int64_t realtime_to_mono) {
  QemuIndex x;
  for (QemuRequest r : q.requests) {
    if (r.ambiguous || !r.pickup || !r.complete) continue;
    for (uint64_t* t : {&r.pickup, &r.block, &r.submit, &r.complete}) *t = OrZero(*t, realtime_to_mono);
    x.req.push_back(r);
    x.longest = std::max(x.longest, r.sectors);
  }
  x.by_sector.resize(x.req.size());
  std::iota(x.by_sector.begin(), x.by_sector.end(), 0);
  std::sort(x.by_sector.begin(), x.by_sector.end(),
            [&](size_t a, size_t b) { return x.req[a].sector < x.req[b].sector; });
  return x;
}

struct IoSpan {  // an agent IO on the guest disk, its block layer times on the guest clock
  uint64_t sector = 0, sectors = 0;
  bool write = false;
  uint64_t issue = 0, complete = 0;
  bool usable = false;  // joined at the agent's layer
};

enum class QemuMatch { None, Joined, Missing, Ambiguous };

// The QEMU requests of each IO, with the guest clock at `offset` (guest - host) give or
// take `slack`.
std::vector<QemuMatch> MatchQemu(const std::vector<IoSpan>& ios, const QemuIndex& q,
                                 int64_t offset, uint64_t slack,
                                 std::vector<std::vector<size_t>>& owned) {
  owned.assign(ios.size(), {});
  std::vector<std::vector<size_t>> claims(q.req.size());
  std::vector<QemuMatch> out(ios.size(), QemuMatch::None);
  for (size_t i = 0; i < ios.size(); ++i) {
    const IoSpan& io = ios[i];
    if (!io.usable) continue;
    const uint64_t from = io.sector >= q.longest ? io.sector - q.longest + 1 : 0;
    auto it = std::lower_bound(q.by_sector.begin(), q.by_sector.end(), from,
                               [&](size_t k, uint64_t s) { return q.req[k].sector < s; });
    for (; it != q.by_sector.end() && q.req[*it].sector < io.sector + io.sectors; ++it) {
      const QemuRequest& r = q.req[*it];
      if (r.write != io.write || !Overlap(r.sector, r.sectors, io.sector, io.sectors)) continue;
      const int64_t pickup_guest = int64_t(r.pickup) + offset;
      if (pickup_guest + int64_t(slack) < int64_t(io.issue) ||
          pickup_guest > int64_t(io.complete + slack))
        continue;
      owned[i].push_back(*it);
      claims[*it].push_back(i);
    }
  }
  for (size_t i = 0; i < ios.size(); ++i) {
    if (!ios[i].usable) continue;
    bool ambiguous = false;
    uint64_t covered = 0;
    const std::vector<size_t>& mine = owned[i];
    for (size_t a = 0; a < mine.size(); ++a) {
      const QemuRequest& r = q.req[mine[a]];
      covered += std::min(r.sector + r.sectors, ios[i].sector + ios[i].sectors) -
                 std::max(r.sector, ios[i].sector);
      for (size_t b = a + 1; b < mine.size(); ++b)
        ambiguous |= Overlap(r.sector, r.sectors, q.req[mine[b]].sector, q.req[mine[b]].sectors);
      // A request two IOs claim is theirs only when it carried both (disjoint sectors).
      for (const size_t other : claims[mine[a]])
        if (other != i && Overlap(ios[other].sector, ios[other].sectors, ios[i].sector, ios[i].sectors))
          ambiguous = true;
    }
    out[i] = ambiguous                       ? QemuMatch::Ambiguous
             : covered >= ios[i].sectors && !mine.empty() ? QemuMatch::Joined
                                                        : QemuMatch::Missing;
  }
  return out;
}

// The offset (guest - host) that keeps every joined IO causal, within [low, high].
struct Bounds {
  int64_t low = INT64_MIN, high = INT64_MAX;
  size_t ios = 0;
  bool Consistent() const { return ios > 0 && low <= high; }
};

Bounds CausalBounds(const std::vector<IoSpan>& ios, const std::vector<QemuMatch>& match,
                    const std::vector<std::vector<size_t>>& owned, const QemuIndex& q,
                    size_t from, size_t to) {
  Bounds b;
  for (size_t i = from; i < to; ++i) {
    if (match[i] != QemuMatch::Joined) continue;
    uint64_t pickup = UINT64_MAX, complete = 0;
    for (const size_t k : owned[i]) {
      pickup = std::min(pickup, q.req[k].pickup);
      complete = std::max(complete, q.req[k].complete);
    }
    // issued before QEMU took it; QEMU completed it before the guest saw it done
    b.low = std::max(b.low, int64_t(ios[i].issue) - int64_t(pickup) - int64_t(kSlackNs));
    b.high = std::min(b.high, int64_t(ios[i].complete) - int64_t(complete) + int64_t(kSlackNs));
    ++b.ios;
  }
  return b;
}

// The host device's requests for QEMU's block layer requests: one window per distinct
// backing range QEMU asked for (a merged request once), mapped to the disk's sectors.
void JoinHostDevice(const PathInputs& in, const QemuIndex& q, const std::vector<bool>& used,
                    std::vector<uint64_t>& issue, std::vector<uint64_t>& complete,
                    std::vector<bool>& joined, std::vector<bool>& ambiguous) {
  issue.assign(q.req.size(), 0);
  complete.assign(q.req.size(), 0);
  joined.assign(q.req.size(), false);
  ambiguous.assign(q.req.size(), false);
  std::map<std::tuple<uint64_t, uint64_t, uint64_t>, std::vector<size_t>> ranges;
  for (size_t k = 0; k < q.req.size(); ++k) {
    const QemuRequest& r = q.req[k];
    if (!used[k]) continue;
    if (r.file_bytes)
      ranges[{r.file_offset, r.file_bytes, r.block}].push_back(k);
    else  // QEMU's block layer not traced: a raw backing holds the guest's bytes as they are
      ranges[{r.sector * 512, r.sectors * 512, r.pickup}].push_back(k);
  }
  std::vector<IoWindow> windows;
  std::vector<size_t> window_range;  // which range each window is a piece of
  std::vector<std::vector<size_t>> range_requests;
  for (const auto& [key, requests] : ranges) {
    const auto& [offset, bytes, block] = key;
    const QemuRequest& r = q.req[requests.front()];
    const uint64_t begin = r.submit ? r.submit : r.block ? r.block : r.pickup;
    for (const SectorRange& s : BackingSectors(in.backing, offset, bytes)) {
      windows.push_back({s.sector, s.sectors, r.write, begin, r.complete});
      window_range.push_back(range_requests.size());
    }
    range_requests.push_back(requests);
  }
  const BlockJoin j = JoinBlockEvents(windows, in.host_device->events, in.backing.major,
                                      in.backing.minor, kSlackNs);
  std::vector<int> pieces(range_requests.size(), 0), good(range_requests.size(), 0);
  std::vector<bool> bad(range_requests.size(), false);
  std::vector<uint64_t> r_issue(range_requests.size(), 0), r_complete(range_requests.size(), 0);
  for (size_t w = 0; w < windows.size(); ++w) {
    const size_t r = window_range[w];
    ++pieces[r];
    if (j.state[w] == JoinState::Ambiguous) bad[r] = true;
    if (j.state[w] != JoinState::Joined) continue;
    ++good[r];
    const uint64_t is = j.times[w].At(BlockEventKind::RqIssue);
    r_issue[r] = r_issue[r] ? std::min(r_issue[r], is) : is;
    r_complete[r] = std::max(r_complete[r], j.times[w].At(BlockEventKind::RqComplete));
  }
  for (size_t r = 0; r < range_requests.size(); ++r)
    for (const size_t k : range_requests[r]) {
      ambiguous[k] = bad[r];
      joined[k] = !bad[r] && pieces[r] > 0 && good[r] == pieces[r];
      issue[k] = r_issue[r];
      complete[k] = r_complete[r];
    }
}

// The agent's IOs as spans on the disk's sectors (QEMU's names for them), each IO's path
// started in `out` with its offset, size and direction, and the agent's join counted.
std::vector<IoSpan> AgentSpans(const PathInputs& in, PathJoin& out) {
  const size_t n = in.agent.size();
  out.paths.resize(n);
  std::vector<IoSpan> spans(n);
  for (size_t i = 0; i < n; ++i) {
    const AgentTracedIo& a = in.agent[i];
    TracedPath& p = out.paths[i];
    p.offset = a.offset;
    p.bytes = a.bytes;
    p.write = a.write;
    spans[i] = {0, a.bytes / 512u, a.write, a.block.At(BlockEventKind::RqIssue),
                a.block.At(BlockEventKind::RqComplete), a.state == JoinState::Joined};
    out.agent_missing += a.state == JoinState::Missing;
    out.agent_ambiguous += a.state == JoinState::Ambiguous;
  }
  // QEMU names the disk's sectors: the target's offsets moved by its first sector.
  for (size_t i = 0; i < n; ++i) spans[i].sector = in.first_sector + in.agent[i].offset / 512;
  return spans;
}

// The agent's IOs matched to QEMU's requests, and the clock offset (agent clock - host
// clock) the match gives.
struct QemuJoin {
  int64_t offset = 0;
  std::vector<QemuMatch> match;
  std::vector<std::vector<size_t>> owned;  // per IO: its requests in q.req
  QemuIndex q;
};

// Matches `spans` to QEMU's requests (none on bare metal or without a QEMU trace) and sets
// `clock`: from the agent link's round trips, narrowed by the causal bounds of the first
// match when they agree; the final match uses that clock.
QemuJoin JoinQemu(const PathInputs& in, const std::vector<IoSpan>& spans, ClockMapping& clock) {
  const size_t n = spans.size();
  QemuJoin j;
  j.offset = in.guest ? in.link_offset_ns : 0;
  clock = {j.offset,
           in.guest ? in.link_uncertainty_ns : 0,
           in.guest ? "agent link round trips" : "one clock (bare metal)",
           {},
           {},
           false};
  j.match.assign(n, QemuMatch::None);
  if (!(in.guest && in.qemu)) return j;
  const QemuIndex& q = j.q = IndexQemu(*in.qemu, in.realtime_to_mono_ns);
  j.match = MatchQemu(spans, q, j.offset, in.link_uncertainty_ns + 1000000, j.owned);
  const Bounds all = CausalBounds(spans, j.match, j.owned, q, 0, n);
  if (all.Consistent()) {
    j.offset = all.low + (all.high - all.low) / 2;
    clock = {j.offset,
             uint64_t(all.high - all.low) / 2,
             "causal bounds from " + std::to_string(all.ios) + " IOs",
             {},
             {},
             false};
    const Bounds first = CausalBounds(spans, j.match, j.owned, q, 0, n / 2);
    const Bounds second = CausalBounds(spans, j.match, j.owned, q, n / 2, n);
    if (first.Consistent() && second.Consistent()) {
      clock.first_half_ns = first.low + (first.high - first.low) / 2;
      clock.second_half_ns = second.low + (second.high - second.low) / 2;
    }
  } else if (all.ios > 0) {
    clock.method += "; causal bounds disagree by " + std::to_string((all.low - all.high) / 1000) +
                    " us: the guest's clock runs at another rate than the host's";
    clock.drift = true;
  }
  j.match = MatchQemu(spans, q, j.offset, clock.uncertainty_ns + kSlackNs, j.owned);
  return j;
}

// The points a path has, in order: QEMU's (those any request passed) and the host device's
// between the guest's issue and completion when they were traced.
std::vector<PathPoint> PointsOf(bool qemu, bool any_block, bool any_submit, bool host) {
  using P = PathPoint;
  std::vector<P> points = {P::AppSubmit, P::BioQueue, P::GetRq, P::RqInsert, P::RqIssue};
  if (qemu) {
    points.push_back(P::QemuPickup);
    if (any_block) points.push_back(P::QemuBlock);
    if (any_submit) points.push_back(P::QemuSubmit);
    if (host) points.insert(points.end(), {P::HostIssue, P::HostComplete});
    points.push_back(P::QemuComplete);
  }
  points.insert(points.end(), {P::RqComplete, P::AppSeen});
  return points;
}

}  // namespace

const char* PathPointName(PathPoint p) {
  static const char* const kNames[kPathPoints] = {
      "app queued",    "app submit",    "bio queued", "request",     "inserted",
      "issued",        "QEMU pickup",   "QEMU block", "QEMU submit", "host issue",
      "host complete", "QEMU complete", "completed",  "app seen"};
  return kNames[int(p)];
}

PathJoin JoinPaths(const PathInputs& in) {
  PathJoin out;
  const size_t n = in.agent.size();
  const std::vector<IoSpan> spans = AgentSpans(in, out);
  QemuJoin qj = JoinQemu(in, spans, out.clock);
  const int64_t offset = qj.offset;
  const std::vector<QemuMatch>& match = qj.match;
  const std::vector<std::vector<size_t>>& owned = qj.owned;
  const QemuIndex& q = qj.q;
  // The host device under QEMU's requests.
  std::vector<uint64_t> host_issue, host_complete;
  std::vector<bool> host_joined, host_ambiguous;
  const bool host = in.guest && in.qemu && in.host_device;
  if (host) {
    std::vector<bool> used(q.req.size(), false);
    for (size_t i = 0; i < n; ++i)
      if (match[i] == QemuMatch::Joined)
        for (const size_t k : owned[i]) used[k] = true;
    JoinHostDevice(in, q, used, host_issue, host_complete, host_joined, host_ambiguous);
  }
  bool any_submit = false, any_block = false;
  for (size_t i = 0; i < n; ++i) {
    const AgentTracedIo& a = in.agent[i];
    TracedPath& p = out.paths[i];
    auto set = [&](PathPoint point, uint64_t agent_time) {
      p.at[int(point)] = agent_time ? uint64_t(int64_t(agent_time) - offset) : 0;
    };
    set(PathPoint::AppQueued, a.queued_ns);
    set(PathPoint::AppSubmit, a.submit_ns);
    set(PathPoint::AppSeen, a.seen_ns);
    set(PathPoint::BioQueue, a.block.At(BlockEventKind::BioQueue));
    set(PathPoint::GetRq, a.block.At(BlockEventKind::GetRq));
    set(PathPoint::RqInsert, a.block.At(BlockEventKind::RqInsert));
    set(PathPoint::RqIssue, a.block.At(BlockEventKind::RqIssue));
    set(PathPoint::RqComplete, a.block.At(BlockEventKind::RqComplete));
    bool joined = a.state == JoinState::Joined;
    if (in.guest && in.qemu) {
      out.qemu_missing += match[i] == QemuMatch::Missing;
      out.qemu_ambiguous += match[i] == QemuMatch::Ambiguous;
      joined = joined && match[i] == QemuMatch::Joined;
      if (match[i] == QemuMatch::Joined) {
        uint64_t* at = p.at;
        auto first = [&](PathPoint point, uint64_t t) {
          uint64_t& v = at[int(point)];
          if (t && (!v || t < v)) v = t;
        };
        bool host_ok = true, host_amb = false;
        for (const size_t k : owned[i]) {
          const QemuRequest& r = q.req[k];
          first(PathPoint::QemuPickup, r.pickup);
          first(PathPoint::QemuBlock, r.block);
          first(PathPoint::QemuSubmit, r.submit);
          at[int(PathPoint::QemuComplete)] = std::max(at[int(PathPoint::QemuComplete)], r.complete);
          any_submit |= r.submit != 0;
          any_block |= r.block != 0;
          if (host) {
            host_ok = host_ok && host_joined[k];
            host_amb = host_amb || host_ambiguous[k];
            first(PathPoint::HostIssue, host_issue[k]);
            at[int(PathPoint::HostComplete)] =
                std::max(at[int(PathPoint::HostComplete)], host_complete[k]);
          }
        }
        if (host) {
          out.host_missing += !host_ok && !host_amb;
          out.host_ambiguous += host_amb;
          joined = joined && host_ok;
        }
      }
    }
    p.joined = joined;
    out.joined += joined;
  }
  out.points = PointsOf(in.guest && in.qemu, any_block, any_submit, host);
  return out;
}

}  // namespace storbed
