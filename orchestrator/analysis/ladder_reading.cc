#include "analysis/ladder_reading.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "analysis/layer_words.h"
#include "number_format.h"

namespace storbed {
namespace {

// A lower rate counts as more than the upper's only past this share and this floor:
// counters read at slightly different instants differ by a little with nothing extra.
constexpr double kExtraShare = 0.10;
constexpr double kExtraFloorPerS = 1.0;
// A depth step must lose this share of its upper depth as well as exceed the intervals.
constexpr double kStepShare = 0.10;

std::string Percent(double share) { return FormatDouble(100 * share, "%.0f%%"); }

bool More(double lower, double upper) {
  return lower > upper * (1 + kExtraShare) + kExtraFloorPerS;
}

// Work at `lo` that `up` did not issue, by kind; empty when none is seen or either rung
// does not count its kinds.
std::vector<std::string> ExtraWork(const LayerStats& up, const LayerStats& lo) {
  std::vector<std::string> out;
  if (!up.has_ops || !lo.has_ops) return out;
  const std::string who = HumanLayerName(up.layer);
  const bool app = up.layer == kLayerApp;
  auto add = [&](double lower, double upper, const char* kind, const char* why) {
    if (More(lower, upper))
      out.push_back(FormatDouble(lower - upper, "%.0f") + " " + kind + "/s more than " + who +
                    " issued (" + why + ")");
  };
  // What else a lower layer serves: readahead and metadata reads, journal and metadata
  // writes, another tenant's IO on a shared device, or one request split into several.
  add(lo.reads_per_s, up.reads_per_s, "reads",
      app ? "readahead, metadata, split requests or other IO on the device"
          : "split requests or other IO on the device");
  add(lo.writes_per_s, up.writes_per_s, "writes",
      app ? "journal, metadata, split requests or other IO on the device"
          : "split requests or other IO on the device");
  add(lo.flushes_per_s, up.flushes_per_s, "flushes", "journal commits or other IO on the device");
  return out;
}

// The requests `lo` served beyond what `up` issued, kind by kind, as a share of all that
// `up` issued.
double ExtraShare(const LayerStats& up, const LayerStats& lo) {
  const double issued = up.reads_per_s + up.writes_per_s + up.flushes_per_s;
  const double extra = std::max(0.0, lo.reads_per_s - up.reads_per_s) +
                       std::max(0.0, lo.writes_per_s - up.writes_per_s) +
                       std::max(0.0, lo.flushes_per_s - up.flushes_per_s);
  return issued > 0 ? extra / issued : (extra > 0 ? 1.0 : 0.0);
}

StepComparison Compare(const LayerStats& up, const LayerStats& lo) {
  StepComparison c;
  c.upper = &up;
  c.lower = &lo;
  c.extra_work = ExtraWork(up, lo);
  std::vector<std::string> why;
  if (!c.extra_work.empty() && ExtraShare(up, lo) > kExtraShare) {
    // Both the depth and the per-request latency below then count other work too. A
    // trickle (another tenant's few writes on a shared host disk) is named, not fatal.
    c.depth_comparable = c.latency_comparable = false;
    why.push_back(HumanLayerName(lo.layer) + " served " + c.extra_work.front());
  }
  // The application's depth leaves its fsyncs out; a block layer's depth (diskstats field
  // 11, QEMU's total_time_ns) holds the flushes they turn into.
  if (c.depth_comparable && up.layer == kLayerApp && up.has_ops && up.flushes_per_s > 0 &&
      lo.has_ops && lo.flushes_per_s > 0) {
    c.depth_comparable = false;
    why.push_back(HumanLayerName(lo.layer) + "'s depth includes its " +
                  FormatDouble(lo.flushes_per_s, "%.0f") +
                  " flushes/s, the application's leaves the fsync time out");
  }
  c.lower_deeper = lo.avg_depth > up.avg_depth + DepthNoise(up) + DepthNoise(lo) + 1e-9;
  if (c.depth_comparable && c.lower_deeper) {
    c.depth_comparable = false;
    why.push_back(HumanLayerName(lo.layer) + " is deeper than " + HumanLayerName(up.layer) + " (" +
                  FormatDepth(lo.avg_depth) + " vs " + FormatDepth(up.avg_depth) +
                  ", beyond their intervals and bounds) and no extra work was measured: the two "
                  "counters do not cover the same requests over the same window");
  }
  if (!up.has_latency || !lo.has_latency) {
    c.latency_comparable = false;
  } else if (c.latency_comparable && lo.mean_latency_us > up.mean_latency_us) {
    c.latency_comparable = false;
    why.push_back(HumanLayerName(lo.layer) + "'s mean latency (" +
                  FormatDouble(lo.mean_latency_us, "%.1f") + " us) is above " +
                  HumanLayerName(up.layer) + "'s (" + FormatDouble(up.mean_latency_us, "%.1f") +
                  " us): they time different requests or different spans");
  }
  for (const std::string& w : why) c.reason += (c.reason.empty() ? "" : "; ") + w;
  return c;
}

std::vector<const LayerStats*> Measured(const Ladder& ladder) {
  std::vector<const LayerStats*> out;
  for (const LayerStats& l : ladder.layers)
    if (l.available) out.push_back(&l);
  return out;
}

std::string CauseOf(const Ladder& ladder, const std::string& layer, double n) {
  std::string known;
  for (const LayerLimit& lim : ladder.limits) {
    if (lim.layer != layer) continue;
    if (std::fabs(lim.value - n) < 0.5) return lim.cause + " = " + FormatDouble(lim.value, "%.0f");
    known += (known.empty() ? "" : ", ") + lim.cause + " is " + FormatDouble(lim.value, "%.0f");
  }
  return known.empty() ? "" : "cause not known (" + known + ")";
}

std::optional<CapFinding> FindCap(const Ladder& ladder, const std::vector<const LayerStats*>& m) {
  for (size_t i = 0; i + 1 < m.size(); ++i) {
    const LayerStats &up = *m[i], &lo = *m[i + 1];
    if (!up.inflight.available || !lo.inflight.available) continue;
    if (!lo.inflight.exact && lo.inflight.samples < kCapMinSamples) continue;
    const double n = lo.inflight.max;
    if (n < 1) continue;  // an idle lower layer caps nothing
    const double above = up.inflight.ShareAbove(n);
    const size_t at = static_cast<size_t>(n);
    const double lower_at = at < lo.inflight.share.size() ? lo.inflight.share[at] : 0;
    if (above < kCapUpperShare || lower_at < kCapLowerAtShare) continue;
    CapFinding cap;
    cap.layer = lo.layer;
    cap.above = up.layer;
    cap.n = n;
    cap.upper_share_above = above;
    cap.lower_share_at = lower_at;
    cap.lower_basis = lo.inflight.exact ? "over the whole window"
                                        : "in " + std::to_string(lo.inflight.samples) + " samples";
    cap.cause = CauseOf(ladder, lo.layer, n);
    return cap;
  }
  return std::nullopt;
}

std::string CapSentence(const CapFinding& c) {
  return "capped at " + FormatDouble(c.n, "%.0f") + " at " + HumanLayerName(c.layer) +
         (c.cause.empty() ? " (cause not known)" : " (" + c.cause + ")") + ": " +
         HumanLayerName(c.above) + " held more than " + FormatDouble(c.n, "%.0f") + " for " +
         Percent(c.upper_share_above) + " of the window, " + HumanLayerName(c.layer) +
         " never more than " + FormatDouble(c.n, "%.0f") + " " + c.lower_basis + " and sat at " +
         FormatDouble(c.n, "%.0f") + " for " + Percent(c.lower_share_at) + " of it";
}

// Each IO's time, top down, from the latency each timed rung adds over the next one.
// Stops at the first step that is not comparable and says why.
std::string TimeSplit(const std::vector<StepComparison>& steps) {
  std::vector<const StepComparison*> timed;
  for (const StepComparison& s : steps)
    if (s.upper->has_latency && s.lower->has_latency) timed.push_back(&s);
  if (timed.empty()) return "";
  const double total = timed.front()->upper->mean_latency_us;
  if (total <= 0) return "";
  std::string parts;
  for (const StepComparison* s : timed) {
    if (!s->latency_comparable) {
      const std::string why = HumanLayerName(s->upper->layer) + " and " +
                              HumanLayerName(s->lower->layer) + " are not comparable: " + s->reason;
      if (parts.empty()) return "no time split: " + why;
      return "each IO spends " + parts + "; below that " + why;
    }
    const double share = (s->upper->mean_latency_us - s->lower->mean_latency_us) / total;
    // The first share is the time above the first lower layer; the next ones lie between
    // two layers, not above everything below (they add up to 100% with the bottom's).
    parts += parts.empty() ? Percent(share) + " above " + HumanLayerName(s->lower->layer)
                           : ", " + Percent(share) + " between " + HumanLayerName(s->upper->layer) +
                                 " and " + HumanLayerName(s->lower->layer);
  }
  const LayerStats& bottom = *timed.back()->lower;
  parts += ", " + Percent(bottom.mean_latency_us / total) + " in " + HumanLayerName(bottom.layer) +
           " and below";
  return "each IO spends " + parts + " (of " + FormatDouble(total, "%.1f") + " us at " +
         HumanLayerName(timed.front()->upper->layer) + ")";
}

// The largest comparable step beyond both rungs' intervals and bounds. A larger drop at a
// rung whose point samples gave no interval cannot be judged, and is said instead.
std::string DepthStep(const std::vector<StepComparison>& steps) {
  const StepComparison *best = nullptr, *unjudged = nullptr;
  const auto drop = [](const StepComparison* s) {
    return s->upper->avg_depth - s->lower->avg_depth;
  };
  for (const StepComparison& s : steps) {
    if (!s.depth_comparable || drop(&s) <= kStepShare * s.upper->avg_depth) continue;
    const double noise = DepthNoise(*s.upper) + DepthNoise(*s.lower);
    if (std::isinf(noise)) {
      if (unjudged == nullptr || drop(&s) > drop(unjudged) + 1e-9) unjudged = &s;
    } else if (drop(&s) > noise && (best == nullptr || drop(&s) > drop(best) + 1e-9)) {
      best = &s;
    }
  }
  std::string out = best ? "depth falls from " + DepthWithInterval(*best->upper) + " in " +
                               HumanLayerName(best->upper->layer) + " to " +
                               DepthWithInterval(*best->lower) + " in " +
                               HumanLayerName(best->lower->layer)
                         : "no comparable step larger than the rungs' intervals";
  if (unjudged && (!best || drop(unjudged) > drop(best) + 1e-9)) {
    const LayerStats& l =
        std::isinf(DepthNoise(*unjudged->lower)) ? *unjudged->lower : *unjudged->upper;
    out += "; the drop from " + FormatDepth(unjudged->upper->avg_depth) + " in " +
           HumanLayerName(unjudged->upper->layer) + " to " +
           FormatDepth(unjudged->lower->avg_depth) + " in " +
           HumanLayerName(unjudged->lower->layer) +
           " cannot be judged: " + HumanLayerName(l.layer) + " has no interval (" +
           l.interval_refused + ")";
  }
  return out;
}

}  // namespace

double DepthNoise(const LayerStats& l) {
  if (!l.has_depth_interval && !l.interval_refused.empty())
    return std::numeric_limits<double>::infinity();
  return (l.has_depth_interval ? l.depth_ci95 : 0) + (l.has_depth_bound ? l.depth_bound : 0);
}

std::string DepthWithInterval(const LayerStats& l) {
  std::string s = FormatDepth(l.avg_depth);
  if (l.has_depth_interval)
    s += " +/- " + FormatDepth(l.depth_ci95) + " (95%, " + std::to_string(l.depth_samples) +
         " samples)";
  if (l.has_depth_bound) s += " +/- " + FormatDepth(l.depth_bound) + " (bound)";
  if (!l.has_depth_interval && !l.interval_refused.empty()) s += " (no interval)";
  return s;
}

std::vector<StepComparison> CompareSteps(const Ladder& ladder) {
  const std::vector<const LayerStats*> m = Measured(ladder);
  std::vector<StepComparison> out;
  for (size_t i = 0; i + 1 < m.size(); ++i) out.push_back(Compare(*m[i], *m[i + 1]));
  return out;
}

LadderReading ReadLadder(const Ladder& ladder) {
  LadderReading r;
  const std::vector<const LayerStats*> m = Measured(ladder);
  if (m.size() < 2) {
    r.headline = m.empty() ? "nothing to read: no layer was measured"
                           : "nothing to compare: only " + HumanLayerName(m[0]->layer) +
                                 " was measured (" + FormatDepth(m[0]->avg_depth) + ")";
    return r;
  }
  const LayerStats& app = *m.front();
  r.qd1 = app.inflight.available ? app.inflight.max <= 1 : app.avg_depth <= 1.0;

  const std::vector<StepComparison> steps = CompareSteps(ladder);
  for (const StepComparison& s : steps)
    for (const std::string& w : s.extra_work) r.extra_work.push_back(s.lower->layer + ": " + w);

  // The time split pairs timed rungs, skipping untimed ones between them (the virtqueue).
  std::vector<const LayerStats*> timed;
  for (const LayerStats* l : m)
    if (l->has_latency) timed.push_back(l);
  std::vector<StepComparison> timed_steps;
  for (size_t i = 0; i + 1 < timed.size(); ++i)
    timed_steps.push_back(Compare(*timed[i], *timed[i + 1]));
  r.time_split = TimeSplit(timed_steps);
  for (const StepComparison& s : timed_steps) {
    const std::string pair = HumanLayerName(s.upper->layer);
    if (s.latency_comparable)
      r.steps.push_back(pair + " adds " +
                        FormatDouble(s.upper->mean_latency_us - s.lower->mean_latency_us, "%.1f") +
                        " us above " + HumanLayerName(s.lower->layer));
    else
      r.steps.push_back(pair + " above " + HumanLayerName(s.lower->layer) +
                        ": not comparable: " + s.reason);
  }
  if (!timed.empty())
    r.steps.push_back(HumanLayerName(timed.back()->layer) + " itself takes " +
                      FormatDouble(timed.back()->mean_latency_us, "%.1f") + " us");

  if (!r.qd1) r.cap = FindCap(ladder, m);
  const std::string split = r.time_split.empty()
                                ? "no two layers with a comparable latency to split it by"
                                : r.time_split;
  if (r.cap) {
    r.headline = CapSentence(*r.cap);
  } else if (r.qd1) {
    r.headline = "no cap at QD1 (one IO in flight): " + split;
  } else {
    bool any_distribution = false;
    for (const LayerStats* l : m) any_distribution |= l->inflight.available && l != m.front();
    r.headline = std::string(any_distribution ? "no cap: "
                                              : "cap not judged (no in-flight distribution "
                                                "below the application): ") +
                 split;
  }

  if (r.qd1) {
    r.depth_step =
        "not named at QD1: with one IO in flight the depths only say where it spends its time";
    return r;
  }
  r.depth_step = DepthStep(steps);
  return r;
}

}  // namespace storbed
