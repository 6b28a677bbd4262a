// The per-IO traces section: for each traced run, where its IOs' time went along the path
// (docs/tracing.md): every segment's distribution as a CDF, the waterfalls of the median
// IO, the p99 IO and the slowest 1%, the segments' figures, each layer's depth from the
// IOs against the counters, and what could not be traced and why.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "reports/html_page.h"
#include "reports/html_sections.h"
#include "reports/number_text.h"
#include "reports/svg_chart.h"
#include "reports/trace_cost.h"

namespace storbed {
namespace {

std::string CdfChart(const RunRecord& r, const IoTraceFigures& f) {
  LineChart chart;
  chart.kind = "io-trace-cdf";
  chart.title = "Time per segment: " + r.run_id;
  // A log axis: segments span microseconds to milliseconds. Below the traces' resolution
  // a time is drawn at half of it.
  chart.x = {"time in the segment", "us", true, {}, {}};
  Panel panel{"", "lower is better (curves further left)",
              {"IOs within", "%", false, 0.0, 100.0}, {}, "no joined IOs"};
  const double floor_us = std::max(0.05, double(f.resolution_ns) / 2000.0);
  for (const SegmentFigures& s : f.segments) {
    Series line{s.name, {}, {}};
    for (size_t q = 0; q < s.percentiles_us.size(); ++q) {
      line.x.push_back(std::max(floor_us, s.percentiles_us[q]));
      line.y.push_back(double(q) * 100.0 / double(s.percentiles_us.size() - 1));
    }
    panel.series.push_back(std::move(line));
  }
  chart.panels.push_back(std::move(panel));
  return RenderLineChart(chart);
}

std::string WaterfallSvg(const RunRecord& r, const IoTraceFigures& f) {
  WaterfallChart chart;
  chart.kind = "io-trace-waterfall";
  chart.title = "Where the time went: " + r.run_id;
  chart.note = "each step starts where the one above ended";
  chart.x = {"time since the IO's submit", "us", false, {}, {}};
  for (const Waterfall& w : f.waterfalls)
    chart.series.push_back(w.which + ", " + TraceFigure(w.latency_us) + " us");
  for (size_t s = 0; s < f.segments.size(); ++s) {
    WaterfallRow row{f.segments[s].name, {}};
    for (const Waterfall& w : f.waterfalls)
      row.spans.push_back(s < w.steps.size() ? Span{w.steps[s].start_us, w.steps[s].us} : Span{});
    chart.rows.push_back(std::move(row));
  }
  return RenderWaterfallChart(chart);
}

std::string SegmentTable(const IoTraceFigures& f) {
  std::vector<std::vector<std::string>> rows;
  for (const SegmentFigures& s : f.segments)
    rows.push_back({s.name, s.from + " -> " + s.to, TraceFigure(s.p50_us), TraceFigure(s.p90_us),
                    TraceFigure(s.p99_us), TraceFigure(s.max_us), TraceFigure(s.mean_us),
                    s.clocks});
  return HtmlTable({"segment", "from -> to", "p50 us", "p90 us", "p99 us", "max us", "mean us",
                    "clocks"},
                   rows, 2, 6);
}

std::string DepthTable(const IoTraceFigures& f) {
  std::vector<std::vector<std::string>> rows;
  for (const DepthFromIos& d : f.depth)
    rows.push_back({d.layer, TraceFigure(d.depth, "%.2f"),
                    d.counter_over_phase ? TraceFigure(*d.counter_over_phase, "%.2f") : "-",
                    d.diff_pct ? TraceFigure(*d.diff_pct, "%+.1f%%") : "-",
                    d.interval + (d.window.empty() ? "" : "; counter over " + d.window) +
                        (d.diff_pct && std::abs(*d.diff_pct) > 5 ? "; " + d.note : "")});
  return HtmlTable({"layer", "depth from the IOs", "counter over the IO phase", "difference",
                    "what each counts"},
                   rows, 1, 3);
}

std::string RunBlock(const RunRecord& r, const std::vector<RunRecord>& records) {
  const IoTraceFigures& f = *r.io_trace;
  std::string out = HtmlHeading(r.run_id + ": " + f.path);
  std::vector<std::string> facts = {
      std::to_string(f.joined) + " of " + std::to_string(f.ios) +
          " IOs joined across every traced layer (" + TraceFigure(100 * f.joined_share, "%.2f") +
          "%); the traces' resolution is " + TraceFigure(f.resolution_ns / 1000.0, "%.0f") + " us",
      "of the application's depth: " + TraceFigure(100 * f.share_before_issue) +
          "% before the block layer issued the request, " +
          TraceFigure(100 * (1 - f.share_before_issue - f.share_after_complete)) + "% issued, " +
          TraceFigure(100 * f.share_after_complete) + "% after it completed",
      "the joined IOs' p50 " + TraceFigure(f.joined_p50_us) +
          " us against the engine's histogram's " + TraceFigure(f.histogram_p50_us) + " us (" +
          TraceFigure(f.p50_diff_pct, "%+.1f") + "%)"};
  if (!f.block_clock.empty()) facts.push_back("the block events: " + f.block_clock);
  if (f.clock_method != "one clock (bare metal)")
    facts.push_back("the guest's clock put on the host's by " + f.clock_method + ": offset " +
                    TraceFigure(f.clock_offset_ns / 1e6, "%.3f") + " ms +- " +
                    TraceFigure(f.clock_uncertainty_ns / 1000.0) + " us");
  if (f.configured_backend_us)
    facts.push_back("null-co answers after " + TraceFigure(*f.configured_backend_us) +
                    " us (configured); its segment measured min " + TraceFigure(f.backend_min_us) +
                    ", p50 " + TraceFigure(f.backend_p50_us) + " us");
  for (const NotTraced& n : f.not_traced) facts.push_back("not traced: " + n.layer + ": " + n.reason);
  for (const std::string& w : f.warnings) facts.push_back("cut short or incomplete: " + w);
  if (!f.file.empty())
    facts.push_back("the joined IOs: " + f.file + " (" + std::to_string(f.file_ios) + " IOs)");
  if (!f.overhead.empty()) facts.push_back(f.overhead);
  if (const std::string cost = TraceCostLine(r, records); !cost.empty()) facts.push_back(cost);
  out += HtmlList(facts);
  out += HtmlFigure(CdfChart(r, f), "") + HtmlFigure(WaterfallSvg(r, f), "");
  out += SegmentTable(f) + DepthTable(f);
  return out;
}

}  // namespace

std::string TracesSectionHtml(const ReportInput& input) {
  std::string out;
  for (const RunRecord& r : input.records)
    if (r.io_trace && r.status == RunStatus::Ok) out += RunBlock(r, input.records);
  if (out.empty()) return HtmlParagraph("No run was traced (job.trace).", "note");
  return HtmlParagraph(
             "Each traced IO followed through every layer of its path, its layers' events "
             "joined on the host's clock: the time each IO spent in each segment as a "
             "distribution, and the waterfalls of the median IO, the p99 IO and the slowest "
             "1% of IOs.",
             "note") +
         out;
}

}  // namespace storbed
