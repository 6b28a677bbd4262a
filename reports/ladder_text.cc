#include "reports/ladder_text.h"

#include <algorithm>
#include <cstdio>
#include <map>

#include "analysis/ladder_reading.h"
#include "analysis/layer_words.h"
#include "analysis/run_stats.h"
#include "number_format.h"

namespace storbed {
namespace {

// depth and its uncertainty, in flight p50/p99/max, rd/s, wr/s, fl/s, KiB, latency.
constexpr const char* kRowFormat = "%-16s %-19s %-13s %8s %8s %7s %7s %9s";
constexpr const char* kNone = "-";

std::string Row(const std::string& layer, const std::string& depth, const std::string& inflight,
                const std::string& rd, const std::string& wr, const std::string& fl,
                const std::string& kib, const std::string& lat) {
  char buf[256];
  std::snprintf(buf, sizeof buf, kRowFormat, layer.c_str(), depth.c_str(), inflight.c_str(),
                rd.c_str(), wr.c_str(), fl.c_str(), kib.c_str(), lat.c_str());
  return buf;
}

// "1.3 +/-0.33 95%" for a 95% interval, "3.0 +/-0.00 bound" for the counters' resolution
// or span, "0.28 no interval" where the point samples gave none, "31.7 exact" for L0. A
// rung with both an interval and a bound shows the interval; the notes name both.
std::string DepthCell(const LayerStats& l) {
  const std::string depth = FormatDepth(l.avg_depth);
  if (l.has_depth_interval) return depth + " +/-" + FormatDepth(l.depth_ci95) + " 95%";
  if (l.has_depth_bound) return depth + " +/-" + FormatDepth(l.depth_bound) + " bound";
  if (!l.interval_refused.empty()) return depth + " no interval";
  return depth + (l.layer == kLayerApp ? " exact" : "");
}

std::string InflightCell(const LayerStats& l) {
  if (!l.inflight.available) return kNone;
  const InflightDistribution& d = l.inflight;
  return FormatDouble(d.p50, "%.0f") + "/" + FormatDouble(d.p99, "%.0f") + "/" +
         FormatDouble(d.max, "%.0f") + (d.exact ? "" : " n" + std::to_string(d.samples));
}

std::string Rate(bool has, double v) { return has ? FormatDouble(v, "%.0f") : kNone; }

// The lower rungs whose depth a step could not compare with the rung above: "n/c" when
// deeper (an impossible figure), "*" beside it otherwise; with the reasons.
struct DepthMarks {
  std::map<std::string, std::string> cell;  // layer -> replacement or suffix
  std::vector<std::string> reasons;
};

DepthMarks MarkDepths(const Ladder& ladder) {
  DepthMarks m;
  for (const StepComparison& s : CompareSteps(ladder)) {
    if (s.depth_comparable) continue;
    m.cell[s.lower->layer] = s.lower_deeper ? "n/c" : "*";
    m.reasons.push_back(s.lower->layer + " depth against " + HumanLayerName(s.upper->layer) +
                        ": not comparable: " + s.reason);
  }
  return m;
}

std::string Side(const std::string& heading, const Ladder& ladder) {
  const DepthMarks marks = MarkDepths(ladder);
  std::string out = heading + "\n";
  out += Row("layer", "depth +/-", "p50/p99/max", "rd/s", "wr/s", "fl/s", "KiB", "lat us") +
         "  source\n";
  std::vector<std::string> notes;
  for (const LayerStats& l : ladder.layers) {
    if (!l.available) {
      out += Row(l.layer, kNone, kNone, kNone, kNone, kNone, kNone, kNone) +
             "  not available: " + l.reason + "\n";
      continue;
    }
    std::string depth = DepthCell(l);
    if (auto it = marks.cell.find(l.layer); it != marks.cell.end())
      depth = it->second == "n/c" ? "n/c" : depth + "*";
    out += Row(l.layer, depth, InflightCell(l), Rate(l.has_ops, l.reads_per_s),
               Rate(l.has_ops, l.writes_per_s), Rate(l.has_ops, l.flushes_per_s),
               l.has_request_size ? FormatDouble(l.avg_request_bytes / 1024, "%.1f") : kNone,
               l.has_latency ? FormatDouble(l.mean_latency_us, "%.1f") : kNone) +
           "  " + l.source + "\n";
    if (l.has_depth_interval && !l.interval_basis.empty())
      notes.push_back(l.layer + ": 95% interval from " + l.interval_basis);
    if (l.has_depth_bound && !l.bound_basis.empty())
      notes.push_back(l.layer + ": bound, not a statistical interval: " + l.bound_basis);
    if (!l.has_depth_interval && !l.interval_refused.empty())
      notes.push_back(l.layer + ": no interval: " + l.interval_refused);
    for (const std::string& n : l.notes) notes.push_back(l.layer + ": " + n);
  }
  for (const std::string& n : notes) out += "  note, " + n + "\n";
  for (const std::string& r : marks.reasons) out += "  " + r + "\n";
  const LadderReading reading = ReadLadder(ladder);
  out += "reading: " + reading.headline + "\n";
  if (reading.cap && !reading.time_split.empty()) out += "time split: " + reading.time_split + "\n";
  std::string steps;
  for (const std::string& s : reading.steps) steps += (steps.empty() ? "" : "; ") + s;
  out += "latency added: " + (steps.empty() ? "fewer than two layers have a mean latency" : steps) +
         "\n";
  if (!reading.depth_step.empty()) out += "largest depth step: " + reading.depth_step + "\n";
  for (const std::string& w : reading.extra_work) out += "work not issued above: " + w + "\n";
  return out;
}

std::string MedianCell(const std::vector<double>& v, const char* fmt) {
  if (v.empty()) return kNone;
  const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
  return FormatDouble(Median(v), fmt) + " [" + FormatDouble(*lo, fmt) + "-" +
         FormatDouble(*hi, fmt) + "]";
}

}  // namespace

std::string RenderLadder(const std::string& title, const Ladder& guest,
                         const std::optional<Ladder>& bare_metal) {
  std::string out = title + "\n" + Side("guest", guest);
  if (bare_metal) out += Side("bare metal", *bare_metal);
  return out;
}

std::string RenderBareMetalLadder(const std::string& title, const Ladder& bare_metal) {
  return title + "\n" + Side("bare metal", bare_metal);
}

std::string RenderLadderMedians(const std::string& title,
                                const std::vector<const Ladder*>& ladders) {
  std::vector<std::string> ids;
  std::map<std::string, std::vector<double>> depth, lat;
  std::map<std::string, size_t> readings;
  std::vector<std::string> reading_order;
  for (const Ladder* l : ladders) {
    for (const LayerStats& s : l->layers) {
      if (std::find(ids.begin(), ids.end(), s.layer) == ids.end()) ids.push_back(s.layer);
      if (!s.available) continue;
      depth[s.layer].push_back(s.avg_depth);
      if (s.has_latency) lat[s.layer].push_back(s.mean_latency_us);
    }
    // Repeats agree on a reading when they name the same cap, or none.
    const LadderReading r = ReadLadder(*l);
    const std::string kind = r.cap ? "capped at " + FormatDouble(r.cap->n, "%.0f") + " at " +
                                         HumanLayerName(r.cap->layer)
                                   : r.headline.substr(0, r.headline.find(':'));
    if (readings[kind]++ == 0) reading_order.push_back(kind);
  }
  std::string out = title + "\n";
  char head[160];
  std::snprintf(head, sizeof head, "%-16s %-24s %s", "layer", "median depth [range]",
                "median lat us [range]");
  out += std::string(head) + "\n";
  for (const std::string& id : ids) {
    char row[200];
    std::snprintf(row, sizeof row, "%-16s %-24s %-30s", id.c_str(),
                  MedianCell(depth[id], "%.2f").c_str(), MedianCell(lat[id], "%.1f").c_str());
    std::string line = row;
    const size_t n = depth[id].size();
    if (n < ladders.size())
      line += " measured in " + std::to_string(n) + " of " + std::to_string(ladders.size());
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  std::string said;
  for (const std::string& k : reading_order)
    said += (said.empty() ? "" : "; ") + std::to_string(readings[k]) + " of " +
            std::to_string(ladders.size()) + ": " + k;
  out += "readings over the repeats: " + said + "\n";
  return out;
}

}  // namespace storbed
