#include "tracing/io_path_figures.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace storbed {
namespace {

using P = PathPoint;

bool GuestSide(P p) { return p <= P::RqIssue || p >= P::RqComplete; }

// The IO's time at each of `points`, a point it did not pass taking its predecessor's.
std::vector<uint64_t> Filled(const TracedPath& p, const std::vector<P>& points) {
  std::vector<uint64_t> t(points.size());
  for (size_t i = 0; i < points.size(); ++i) {
    t[i] = p.At(points[i]);
    if (t[i] == 0 && i > 0) t[i] = t[i - 1];
  }
  return t;
}

double Quantile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  const double pos = q * double(sorted.size() - 1);
  const size_t lo = size_t(std::floor(pos));
  const size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (pos - double(lo)) * (sorted[hi] - sorted[lo]);
}

// Sum over IOs of the time each spent in [from, to), clipped to the phase, over its length.
struct LayerDepth {
  double depth = 0, share = 0;
};
LayerDepth DepthOver(const PathJoin& join, P from, P fallback_from, P to, uint64_t start,
                     uint64_t end) {
  LayerDepth d;
  if (end <= start || join.paths.empty()) return d;
  long double held = 0;
  size_t with = 0;
  for (const TracedPath& p : join.paths) {
    uint64_t a = p.At(from) ? p.At(from) : p.At(fallback_from);
    const uint64_t b = p.At(to);
    if (!a || !b || b < a) continue;
    ++with;
    a = std::max(a, start);
    const uint64_t c = std::min(b, end);
    if (c > a) held += c - a;
  }
  d.depth = double(held / (end - start));
  d.share = double(with) / double(join.paths.size());
  return d;
}

const LayerStats* Rung(const Ladder* ladder, const std::string& id) {
  if (!ladder) return nullptr;
  for (const LayerStats& l : ladder->layers)
    if (l.layer == id && l.available) return &l;
  return nullptr;
}

// A counter read over `span_s` around the `phase_s` IO phase spread its request time over
// the span: over the phase it is span / phase times larger.
struct Counter {
  std::optional<double> depth;
  double span_s = 0, phase_s = 0;
};

Counter FromRung(const LayerStats* rung, double phase_s) {
  if (!rung) return {};
  Counter c{rung->avg_depth, 0, phase_s};
  // SetSpanBound's bound: the counters' span beyond the window, as a share of the depth.
  if (rung->has_depth_bound && rung->avg_depth > 0 && rung->bound_basis.rfind("counters ", 0) == 0)
    c.span_s = phase_s * (1 + rung->depth_bound / rung->avg_depth);
  return c;
}

void AddDepth(IoTraceFigures& f, const std::string& layer, const std::string& interval,
              LayerDepth d, const Counter& counter, std::string note) {
  DepthFromIos row{layer, interval, d.depth, d.share, counter.depth, std::nullopt, "",
                   std::nullopt, std::move(note)};
  if (counter.depth && *counter.depth > 0) {
    double over_phase = *counter.depth;
    if (counter.span_s > counter.phase_s && counter.phase_s > 0) {
      over_phase *= counter.span_s / counter.phase_s;
      char w[96];
      std::snprintf(w, sizeof w, "the counter's %.3f s around the %.3f s IO phase",
                    counter.span_s, counter.phase_s);
      row.window = w;
    }
    row.counter_over_phase = over_phase;
    row.diff_pct = 100 * (d.depth - over_phase) / over_phase;
  }
  f.depth.push_back(std::move(row));
}

}  // namespace

std::string SegmentName(P from, P to) {
  struct Name {
    P from, to;
    const char* name;
  };
  static const Name kNames[] = {
      {P::AppSubmit, P::BioQueue, "submit"},
      {P::BioQueue, P::GetRq, "request wait"},
      {P::GetRq, P::RqInsert, "plug and insert"},
      {P::RqInsert, P::RqIssue, "dispatch"},
      {P::RqIssue, P::QemuPickup, "to QEMU"},
      {P::QemuPickup, P::QemuBlock, "QEMU device"},
      {P::QemuBlock, P::QemuSubmit, "QEMU block layer"},
      {P::QemuSubmit, P::HostIssue, "host block layer"},
      {P::QemuBlock, P::HostIssue, "QEMU block and host block layer"},
      {P::HostIssue, P::HostComplete, "host device"},
      {P::HostComplete, P::QemuComplete, "back to QEMU"},
      {P::QemuSubmit, P::QemuComplete, "host (not traced)"},
      {P::QemuBlock, P::QemuComplete, "QEMU backend"},
      {P::QemuPickup, P::QemuComplete, "QEMU"},
      {P::QemuPickup, P::HostIssue, "QEMU to the host device"},
      {P::QemuComplete, P::RqComplete, "to the guest"},
      {P::RqIssue, P::RqComplete, "device"},
      {P::RqComplete, P::AppSeen, "completion"},
  };
  for (const Name& n : kNames)
    if (n.from == from && n.to == to) return n.name;
  return std::string(PathPointName(from)) + " -> " + PathPointName(to);
}

namespace {

// The IO, join and clock counts of `join`.
void AddJoinCounts(IoTraceFigures& f, const PathJoin& join, const FigureInputs& in) {
  f.path = in.path;
  f.ios = join.paths.size();
  f.joined = join.joined;
  f.joined_share = f.ios ? double(f.joined) / double(f.ios) : 0;
  f.agent_missing = join.agent_missing;
  f.agent_ambiguous = join.agent_ambiguous;
  f.qemu_missing = join.qemu_missing;
  f.qemu_ambiguous = join.qemu_ambiguous;
  f.host_missing = join.host_missing;
  f.host_ambiguous = join.host_ambiguous;
  for (const P p : join.points) f.points.push_back(PathPointName(p));
  for (const UntracedLayer& u : join.untraced) f.not_traced.push_back({u.layer, u.reason});
  f.clock_offset_ns = join.clock.offset_ns;
  f.clock_uncertainty_ns = join.clock.uncertainty_ns;
  f.clock_method = join.clock.method;
  f.clock_drift = join.clock.drift;
  f.histogram_p50_us = in.histogram_p50_us;
}

// The segment from `from` to `to` over its IOs' times `v` (sorted here), in microseconds.
SegmentFigures SegmentOf(std::vector<double>& v, P from, P to, const std::string& clock_method) {
  std::sort(v.begin(), v.end());
  SegmentFigures sf;
  sf.name = SegmentName(from, to);
  sf.from = PathPointName(from);
  sf.to = PathPointName(to);
  const bool a = GuestSide(from), b = GuestSide(to);
  const bool guest_clock = clock_method != "one clock (bare metal)";
  sf.clocks = !guest_clock ? "host" : a && b ? "guest" : !a && !b ? "host" : "guest -> host";
  if (!v.empty()) {
    sf.p50_us = Quantile(v, 0.5);
    sf.p90_us = Quantile(v, 0.9);
    sf.p99_us = Quantile(v, 0.99);
    sf.max_us = v.back();
    double sum = 0;
    for (double x : v) sum += x;
    sf.mean_us = sum / double(v.size());
    for (int q = 0; q <= 100; ++q) sf.percentiles_us.push_back(Quantile(v, q / 100.0));
  }
  return sf;
}

// The waterfalls of `rows` (per joined IO: its segments, then its latency; sorted here): the
// IOs at the median and at p99 of latency, and the slowest 1% on average.
void AddWaterfalls(IoTraceFigures& f, std::vector<std::vector<double>>& rows, size_t segs,
                   double histogram_p50_us) {
  std::sort(rows.begin(), rows.end(),
            [segs](const std::vector<double>& a, const std::vector<double>& b) {
              return a[segs] < b[segs];
            });
  auto waterfall = [&](const std::string& which, const std::vector<double>& row) {
    Waterfall w{which, row[segs], {}};
    double at = 0;
    for (size_t s = 0; s < segs; ++s) {
      w.steps.push_back({f.segments[s].name, at, row[s]});
      at += row[s];
    }
    f.waterfalls.push_back(std::move(w));
  };
  if (rows.empty()) return;
  const size_t n = rows.size();
  f.joined_p50_us = n % 2 ? rows[n / 2][segs] : (rows[n / 2 - 1][segs] + rows[n / 2][segs]) / 2;
  if (histogram_p50_us > 0)
    f.p50_diff_pct = 100 * (f.joined_p50_us - histogram_p50_us) / histogram_p50_us;
  waterfall("median IO", rows[(n - 1) / 2]);
  const size_t p99 = std::min(n - 1, size_t(std::ceil(0.99 * double(n))) - 1);
  waterfall("p99 IO", rows[p99]);
  std::vector<double> mean(segs + 1, 0);
  for (size_t i = p99; i < n; ++i)
    for (size_t s = 0; s <= segs; ++s) mean[s] += rows[i][s] / double(n - p99);
  waterfall("slowest 1% (mean of " + std::to_string(n - p99) + " IOs)", mean);
}

// Segments, the shares of time before issue and after completion, and the waterfalls, over
// the IOs joined at every layer.
void AddSegments(IoTraceFigures& f, const PathJoin& join, const FigureInputs& in) {
  const std::vector<P>& pts = join.points;
  const size_t segs = pts.size() - 1;
  std::vector<std::vector<double>> per_segment(segs);
  std::vector<std::vector<double>> rows;  // per joined IO: its segments, then its latency
  double before_issue = 0, after_complete = 0, in_flight = 0, queued = 0;
  const size_t issue_at = size_t(std::find(pts.begin(), pts.end(), P::RqIssue) - pts.begin());
  const size_t complete_at =
      size_t(std::find(pts.begin(), pts.end(), P::RqComplete) - pts.begin());
  for (const TracedPath& p : join.paths) {
    if (!p.joined) continue;
    const std::vector<uint64_t> t = Filled(p, pts);
    std::vector<double> row(segs + 1);
    for (size_t s = 0; s < segs; ++s) {
      row[s] = (double(int64_t(t[s + 1] - t[s]))) / 1000.0;
      per_segment[s].push_back(row[s]);
    }
    row[segs] = double(t.back() - t.front()) / 1000.0;
    rows.push_back(std::move(row));
    // Over the application's depth: each IO from when it began to count in flight.
    const uint64_t from = p.At(P::AppQueued) ? std::min(p.At(P::AppQueued), t.front()) : t.front();
    queued += double(t.front() - from);
    before_issue += double(t[issue_at] - from);
    after_complete += double(t.back() - t[complete_at]);
    in_flight += double(t.back() - from);
  }
  if (in_flight > 0) {
    f.share_before_issue = before_issue / in_flight;
    f.share_after_complete = after_complete / in_flight;
  }
  if (!rows.empty()) f.queued_before_submit_us = queued / double(rows.size()) / 1000.0;
  for (size_t s = 0; s < segs; ++s)
    f.segments.push_back(SegmentOf(per_segment[s], pts[s], pts[s + 1], join.clock.method));
  AddWaterfalls(f, rows, segs, in.histogram_p50_us);
}

// Depth per layer, from every IO that has the layer's interval, beside its counter.
void AddDepths(IoTraceFigures& f, const PathJoin& join, const FigureInputs& in) {
  const std::vector<P>& pts = join.points;
  const uint64_t a = in.phase_start_ns, b = in.phase_end_ns;
  const double phase_s = b > a ? double(b - a) / 1e9 : 0;
  const LayerStats* app = Rung(in.ladder, kLayerApp);
  AddDepth(f, kLayerApp, "app queued .. app seen",
           DepthOver(join, P::AppQueued, P::AppSubmit, P::AppSeen, a, b),
           FromRung(app, phase_s), "the agent's own in-flight count over the same phase");
  AddDepth(f, in.agent_layer, "request .. completed (bio queued where no request event)",
           DepthOver(join, P::GetRq, P::BioQueue, P::RqComplete, a, b),
           Counter{in.agent_layer_counter, in.agent_counter_span_s, phase_s},
           "diskstats stops a request's clock in __blk_mq_end_request, after bio_endio has "
           "woken the thread waiting for it; the completion tracepoint fires before that "
           "wake-up (under TCG an emulated IPI), so the counter is higher by it (the "
           "'completion' segment holds it)");
  const bool guest = std::find(pts.begin(), pts.end(), P::QemuPickup) != pts.end();
  if (guest) {
    const LayerStats* qemu = Rung(in.ladder, kLayerQemuBlock);
    AddDepth(f, kLayerQemuBlock, "QEMU pickup .. QEMU complete",
             DepthOver(join, P::QemuPickup, P::QemuPickup, P::QemuComplete, a, b),
             FromRung(qemu, phase_s),
             "query-blockstats accounts a request from when QEMU took it to its completion");
  }
  if (std::find(pts.begin(), pts.end(), P::HostIssue) != pts.end()) {
    const LayerStats* dev = Rung(in.ladder, kLayerHostDevice);
    AddDepth(f, kLayerHostDevice, "host issue .. host complete",
             DepthOver(join, P::HostIssue, P::HostIssue, P::HostComplete, a, b),
             FromRung(dev, phase_s),
             "diskstats counts every request of the device, other host IO included; the trace "
             "only the guest's");
  }
}

}  // namespace

IoTraceFigures ComputeIoTraceFigures(const PathJoin& join, const FigureInputs& in) {
  IoTraceFigures f;
  AddJoinCounts(f, join, in);
  AddSegments(f, join, in);
  // null-co: its configured latency against the backend segment that holds it.
  f.configured_backend_us = in.configured_backend_us;
  f.qemu_timer_slack_us = in.qemu_timer_slack_us;
  for (const SegmentFigures& s : f.segments)
    if ((s.from == PathPointName(P::QemuBlock) || s.from == PathPointName(P::QemuPickup)) &&
        s.to == PathPointName(P::QemuComplete) && !s.percentiles_us.empty()) {
      f.backend_min_us = s.percentiles_us.front();
      f.backend_p50_us = s.p50_us;
    }
  AddDepths(f, join, in);
  return f;
}

}  // namespace storbed
