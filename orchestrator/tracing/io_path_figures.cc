#include "tracing/io_path_figures.h"

#include <algorithm>
#include <cmath>

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

void AddDepth(IoTraceFigures& f, const std::string& layer, const std::string& interval,
              LayerDepth d, std::optional<double> counter, std::string note) {
  DepthFromIos row{layer, interval, d.depth, d.share, counter, std::nullopt, std::move(note)};
  if (counter && *counter > 0) row.diff_pct = 100 * (d.depth - *counter) / *counter;
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
      {P::QemuComplete, P::RqComplete, "to the guest"},
      {P::RqIssue, P::RqComplete, "device"},
      {P::RqComplete, P::AppSeen, "completion"},
  };
  for (const Name& n : kNames)
    if (n.from == from && n.to == to) return n.name;
  return std::string(PathPointName(from)) + " -> " + PathPointName(to);
}

IoTraceFigures ComputeIoTraceFigures(const PathJoin& join, const FigureInputs& in) {
  IoTraceFigures f;
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

  // Segments over the IOs joined at every layer.
  const std::vector<P>& pts = join.points;
  const size_t segs = pts.size() - 1;
  std::vector<std::vector<double>> per_segment(segs);
  std::vector<std::vector<double>> rows;  // per joined IO: its segments, then its latency
  double before_issue = 0, after_complete = 0, in_flight = 0;
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
    before_issue += double(t[issue_at] - t.front());
    after_complete += double(t.back() - t[complete_at]);
    in_flight += double(t.back() - t.front());
  }
  if (in_flight > 0) {
    f.share_before_issue = before_issue / in_flight;
    f.share_after_complete = after_complete / in_flight;
  }
  for (size_t s = 0; s < segs; ++s) {
    std::vector<double>& v = per_segment[s];
    std::sort(v.begin(), v.end());
    SegmentFigures sf;
    sf.name = SegmentName(pts[s], pts[s + 1]);
    sf.from = PathPointName(pts[s]);
    sf.to = PathPointName(pts[s + 1]);
    const bool a = GuestSide(pts[s]), b = GuestSide(pts[s + 1]);
    const bool guest_clock = join.clock.method != "one clock (bare metal)";
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
    f.segments.push_back(std::move(sf));
  }
  // Waterfalls: the IOs at the median and at p99 of latency, and the slowest 1% on average.
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
  if (!rows.empty()) {
    const size_t n = rows.size();
    f.joined_p50_us = n % 2 ? rows[n / 2][segs] : (rows[n / 2 - 1][segs] + rows[n / 2][segs]) / 2;
    if (in.histogram_p50_us > 0)
      f.p50_diff_pct = 100 * (f.joined_p50_us - in.histogram_p50_us) / in.histogram_p50_us;
    waterfall("median IO", rows[(n - 1) / 2]);
    const size_t p99 = std::min(n - 1, size_t(std::ceil(0.99 * double(n))) - 1);
    waterfall("p99 IO", rows[p99]);
    std::vector<double> mean(segs + 1, 0);
    for (size_t i = p99; i < n; ++i)
      for (size_t s = 0; s <= segs; ++s) mean[s] += rows[i][s] / double(n - p99);
    waterfall("slowest 1% (mean of " + std::to_string(n - p99) + " IOs)", mean);
  }
  // Depth per layer, from every IO that has the layer's interval.
  const uint64_t a = in.phase_start_ns, b = in.phase_end_ns;
  const LayerStats* app = Rung(in.ladder, kLayerApp);
  AddDepth(f, kLayerApp, "app submit .. app seen", DepthOver(join, P::AppSubmit, P::AppSubmit, P::AppSeen, a, b),
           app ? std::optional(app->avg_depth) : std::nullopt,
           "the agent's own in-flight count over the same phase");
  AddDepth(f, in.agent_layer, "request .. completed (bio queued where no request event)",
           DepthOver(join, P::GetRq, P::BioQueue, P::RqComplete, a, b), in.agent_layer_counter,
           "diskstats counts a request from its start to its completion; its window is the "
           "sampler's, a little wider than the IO phase");
  const bool guest = std::find(pts.begin(), pts.end(), P::QemuPickup) != pts.end();
  if (guest) {
    const LayerStats* qemu = Rung(in.ladder, kLayerQemuBlock);
    AddDepth(f, kLayerQemuBlock, "QEMU pickup .. QEMU complete",
             DepthOver(join, P::QemuPickup, P::QemuPickup, P::QemuComplete, a, b),
             qemu ? std::optional(qemu->avg_depth) : std::nullopt,
             "query-blockstats accounts a request from when QEMU took it to its completion");
  }
  if (std::find(pts.begin(), pts.end(), P::HostIssue) != pts.end()) {
    const LayerStats* dev = Rung(in.ladder, kLayerHostDevice);
    AddDepth(f, kLayerHostDevice, "host issue .. host complete",
             DepthOver(join, P::HostIssue, P::HostIssue, P::HostComplete, a, b),
             dev ? std::optional(dev->avg_depth) : std::nullopt,
             "diskstats counts every request of the device, other host IO included; the trace "
             "only the guest's");
  }
  return f;
}

}  // namespace storbed
