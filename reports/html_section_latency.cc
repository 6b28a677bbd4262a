// The latency section: a CDF per job, one curve per cell, from the runs' histograms merged.
#include <algorithm>
#include <cstdio>
#include <iterator>

#include "analysis/run_stats.h"
#include "reports/cells.h"
#include "reports/compare_metrics.h"
#include "reports/html_page.h"
#include "reports/html_sections.h"
#include "reports/svg_chart.h"

namespace storbed {
namespace {

std::string Us(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", v);
  return buf;
}

constexpr double kQuantiles[] = {50, 90, 99, 99.9};

// Within the runs' own min and max, as the agent clamps its percentiles; unclamped when
// the summary has no range (hand-made results).
double Clamped(double v, double lo, double hi) {
  return lo <= hi && hi > 0 ? std::clamp(v, lo, hi) : v;
}

bool AllHaveHistograms(const CellRuns& c) {
  return std::all_of(c.ok.begin(), c.ok.end(),
                     [](const RunRecord* r) { return !r->result->latency_histogram.empty(); });
}

// The cell's IOs as one distribution: its curve and its table row. Percentiles are
// clamped to the runs' own min and max, as the agent clamps its own.
void AddMergedCell(const CellRuns& c, Panel& panel, std::vector<std::vector<std::string>>& rows) {
  std::vector<const LatencyHistogram*> parts;
  double lo = c.ok.front()->result->latency.min_us, hi = c.ok.front()->result->latency.max_us;
  for (const RunRecord* r : c.ok) {
    parts.push_back(&r->result->latency_histogram);
    lo = std::min(lo, r->result->latency.min_us);
    hi = std::max(hi, r->result->latency.max_us);
  }
  const LatencyHistogram merged = MergeHistograms(parts);
  Series s{c.cell + (c.ok.size() > 1 ? " (" + std::to_string(c.ok.size()) + " runs)" : ""), {}, {}};
  for (const auto& [us, pct] : HistogramCdf(merged)) {
    s.x.push_back(us);
    s.y.push_back(pct);
  }
  panel.series.push_back(s);
  std::vector<std::string> row = {c.cell, std::to_string(c.ok.size()),
                                  std::to_string(merged.Total())};
  for (double q : kQuantiles) row.push_back(Us(Clamped(HistogramPercentileUs(merged, q), lo, hi)));
  row.push_back(Us(hi));
  row.push_back("merged histogram");
  rows.push_back(row);
}

// Results from before histograms: each run's summary percentiles as its curve, and the
// medians of the runs' percentiles in the table, said to be that.
void AddSummaryCell(const CellRuns& c, Panel& panel, std::vector<std::vector<std::string>>& rows) {
  uint64_t ios = 0;
  std::vector<std::vector<double>> per_quantile(std::size(kQuantiles) + 1);
  for (const RunRecord* r : c.ok) {
    const LatencySummary& l = r->result->latency;
    panel.series.push_back({r->run_id + " (percentiles only)",
                            {l.min_us, l.p50_us, l.p90_us, l.p99_us, l.p999_us, l.max_us},
                            {0, 50, 90, 99, 99.9, 100}});
    ios += l.count;
    const double values[] = {l.p50_us, l.p90_us, l.p99_us, l.p999_us, l.max_us};
    for (size_t i = 0; i < per_quantile.size(); ++i) per_quantile[i].push_back(values[i]);
  }
  std::vector<std::string> row = {c.cell, std::to_string(c.ok.size()), std::to_string(ios)};
  for (const auto& v : per_quantile) row.push_back(Us(Median(v)));
  row.push_back(c.ok.size() > 1 ? "median of the runs' percentiles (no histograms)"
                                : "the run's percentiles (no histogram)");
  rows.push_back(row);
}

}  // namespace

std::string LatencySectionHtml(const ReportInput& input) {
  const std::vector<RunRecord> runs = ReportedRuns(input.records);
  const std::vector<CellRuns> cells = GroupCells(runs);
  std::vector<std::string> jobs;
  for (const CellRuns& c : cells)
    if (!c.ok.empty() && std::find(jobs.begin(), jobs.end(), c.first->job.name) == jobs.end())
      jobs.push_back(c.first->job.name);
  if (jobs.empty()) return HtmlParagraph("No run measured latencies.", "note");
  std::string out = HtmlParagraph(
      "Per-IO completion latency as a cumulative distribution: the share of IOs completed "
      "within a time. Repeats of a cell are merged bucket by bucket before any percentile is "
      "taken, so a cell's p99 is the p99 of all its IOs.",
      "note");
  for (const std::string& job : jobs) {
    LineChart chart;
    chart.kind = "latency-cdf";
    chart.title = "Latency of job " + job;
    chart.x = {"completion latency", "us", true, {}, {}};
    Panel panel{"",
                BetterPhrase(DirectionOf("p99_us")) + " (curves further left)",
                {"IOs completed within", "%", false, 0.0, 100.0},
                {},
                "no IOs"};
    std::vector<std::vector<std::string>> rows;
    for (const CellRuns& c : cells) {
      if (c.ok.empty() || c.first->job.name != job) continue;
      if (AllHaveHistograms(c))
        AddMergedCell(c, panel, rows);
      else
        AddSummaryCell(c, panel, rows);
    }
    chart.panels.push_back(panel);
    out += HtmlFigure(RenderLineChart(chart), "") +
           HtmlTable(
               {"cell", "runs", "IOs", "p50 us", "p90 us", "p99 us", "p99.9 us", "max us", "from"},
               rows, 1, 7);
  }
  return out;
}

}  // namespace storbed
