// The ladders section: each run's depth per layer as bars, guest beside its bare-metal twin.
#include <algorithm>

#include "analysis/ladder_reading.h"
#include "analysis/layer_words.h"
#include "reports/compare_metrics.h"
#include "reports/html_page.h"
#include "reports/html_sections.h"
#include "reports/ladders.h"
#include "reports/svg_chart.h"

namespace storbed {
namespace {

const LayerStats* Find(const Ladder& ladder, const std::string& id) {
  for (const LayerStats& l : ladder.layers)
    if (l.layer == id) return &l;
  return nullptr;
}

// A rung deeper than the one above beyond both rungs' uncertainty, with no like-for-like
// reason, gets no bar: its figure is not comparable (the findings say why).
Bar DepthBar(const LayerStats* l, const Ladder& ladder) {
  if (l == nullptr) return {std::nullopt, "not on this path"};
  if (!l->available) return {std::nullopt, "n/a: " + l->reason};
  for (const StepComparison& s : CompareSteps(ladder))
    if (s.lower == l && !s.depth_comparable && s.lower_deeper)
      return {std::nullopt, "not comparable with " + HumanLayerName(s.upper->layer)};
  return {l->avg_depth, ""};
}

// Layers top down as the text ladder lists them: the first ladder's, then any of the
// second's it lacks.
std::vector<std::string> LayerIds(const Ladder& first, const Ladder* second) {
  std::vector<std::string> ids;
  for (const LayerStats& l : first.layers) ids.push_back(l.layer);
  if (second)
    for (const LayerStats& l : second->layers)
      if (std::find(ids.begin(), ids.end(), l.layer) == ids.end()) ids.push_back(l.layer);
  return ids;
}

// Each measured rung's depth with its uncertainty, labelled as what it is: "the virtqueue
// 1.3 +/- 0.33 (95%, 209 samples); QEMU's block layer 3.9 +/- 0.02 (bound); ...".
std::string Depths(const Ladder& ladder) {
  std::string out;
  for (const LayerStats& l : ladder.layers)
    if (l.available)
      out += (out.empty() ? "" : "; ") + HumanLayerName(l.layer) + " " + DepthWithInterval(l);
  return out;
}

// The reading of one side (ladder_reading.h): headline, time split, latency steps, the
// largest depth step, work below that the layer above did not issue.
std::vector<std::string> Findings(const std::string& side, const Ladder& ladder) {
  const LadderReading r = ReadLadder(ladder);
  std::vector<std::string> out = {side + r.headline, side + "depths: " + Depths(ladder)};
  if (r.cap && !r.time_split.empty()) out.push_back(side + "time split: " + r.time_split);
  for (const std::string& s : r.steps) out.push_back(side + s);
  if (!r.depth_step.empty()) out.push_back(side + "largest depth step: " + r.depth_step);
  for (const std::string& w : r.extra_work) out.push_back(side + "work not issued above: " + w);
  return out;
}

std::string LadderFigure(const LadderPair& p) {
  const RunRecord& r = *p.run;
  const bool bare = r.target == "bare-metal";
  const Ladder* twin = p.bare_metal_twin ? &*p.bare_metal_twin->ladder : nullptr;
  BarChart chart;
  chart.kind = "ladder";
  chart.title = "Depth ladder: " + r.run_id + (bare ? "" : " (" + r.accel + ")") +
                (twin ? " vs " + p.bare_metal_twin->run_id : "");
  // Depth is where the IOs wait, not a score: compare never judges it either.
  chart.note = "depth: " + BetterPhrase(Better::None);
  chart.value = {"average queue depth", "requests", false, 0.0, {}};
  chart.series = {(bare ? "bare metal " : "guest ") + r.run_id};
  if (twin) chart.series.push_back("bare metal " + p.bare_metal_twin->run_id);
  for (const std::string& id : LayerIds(*r.ladder, twin)) {
    BarGroup g{id, {DepthBar(Find(*r.ladder, id), *r.ladder)}};
    if (twin) g.bars.push_back(DepthBar(Find(*twin, id), *twin));
    chart.groups.push_back(g);
  }
  std::vector<std::string> findings = Findings(twin ? "guest: " : "", *r.ladder);
  if (twin) {
    const auto more = Findings("bare metal: ", *twin);
    findings.insert(findings.end(), more.begin(), more.end());
  }
  return HtmlFigure(RenderBarChart(chart), "") + HtmlList(findings);
}

}  // namespace

std::string LaddersSectionHtml(const ReportInput& input) {
  const std::vector<LadderPair> pairs = PairLadders(input.records);
  if (pairs.empty()) return HtmlParagraph("No run has a depth ladder.", "note");
  std::string out = HtmlParagraph(
      "Average queue depth at each layer, from the application (L0) down to the host device "
      "(L3), by Little's law over the IO phase; each guest run beside the bare-metal run of "
      "the same cell and repeat. Below each: a cap or the time split, each depth with a 95% "
      "interval (point samples), a bound (the counters' resolution or span, not a "
      "statistical interval) or \"no interval\" (samples too few or too alike), and any rung "
      "that is not comparable with the one above. The text report has the in-flight "
      "distributions, reads/writes/flushes, request size and latency per layer.",
      "note");
  for (const LadderPair& p : pairs) out += LadderFigure(p);
  return out;
}

}  // namespace storbed
