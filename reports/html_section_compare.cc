// The compare section: CAND (this directory) against BASE, per cell a whisker chart of the
// ratios with their 95% CI around 1.0 and the noise band, then the figures.

#include "reports/compare_metrics.h"
#include "reports/compare_words.h"
#include "reports/html_page.h"
#include "reports/html_sections.h"
#include "reports/number_text.h"
#include "reports/svg_chart.h"

namespace storbed {
namespace {

std::string VerdictColour(const std::string& verdict) {
  if (verdict == "worse") return "#D55E00";
  if (verdict == "better") return "#009E73";
  if (verdict == "side by side") return "#777777";
  return "#0072B2";
}

std::string CellHtml(const CellSummary& cell, const CompareReport& report) {
  const double noise = report.options.noise;
  WhiskerChart chart;
  chart.kind = "compare";
  chart.title = cell.cell;
  chart.note = "shaded: +-" + FormatPercent(noise) + " noise band (no change); dashed: 1.0 (equal)";
  chart.x = {"ratio", "CAND / BASE", false, {}, {}};
  chart.band_low = 1 - noise;
  chart.band_high = 1 + noise;
  std::vector<std::vector<std::string>> rows;
  for (const MetricRow& r : report.rows) {
    if (r.cell != cell.cell) continue;
    chart.rows.push_back({r.metric + " (" + BetterPhrase(r.direction) + ")", r.ratio, r.ci_low,
                          r.ci_high, r.verdict, VerdictColour(r.verdict)});
    rows.push_back({r.metric, ToString(r.direction), FormatNumber(r.median_base), FormatNumber(r.median_cand),
                    FormatNumber(r.ratio, "%.3f"),
                    r.ci_low ? FormatNumber(r.ci_low, "%.3f") + " .. " + FormatNumber(r.ci_high, "%.3f") : "-",
                    FormatNumber(r.p, "%.2g"), FormatNumber(r.adjusted_p, "%.2g"), r.verdict,
                    r.detail});
  }
  std::string heading =
      cell.cell + ": n " + std::to_string(cell.n_base) + " vs " + std::to_string(cell.n_cand);
  if (cell.failed_base || cell.failed_cand)
    heading += " (failed runs left out: " + std::to_string(cell.failed_base) + " vs " +
               std::to_string(cell.failed_cand) + ")";
  std::vector<std::string> resolution;
  for (const ResolutionLine& line : cell.resolution)
    resolution.push_back(line.metric + ": " + ResolutionSentence(line.resolution));
  return HtmlHeading(heading) + HtmlFigure(RenderWhiskerChart(chart), "") +
         HtmlTable(
             {"metric", "better", "BASE", "CAND", "ratio", "95% CI", "p", "p adj", "verdict",
              "detail"},
             rows, 2, 6) +
         HtmlList(resolution);
}

std::string EnvironmentHtml(const CompareReport& report) {
  if (!report.comparable)
    return HtmlParagraph("Environment not checked: BASE or CAND has no manifest.json.", "note");
  std::vector<std::string> items;
  for (const EnvironmentDiff& d : report.differences)
    items.push_back(d.item + ": BASE " + d.base + " | CAND " + d.cand +
                    (!d.gating   ? " (not gated: describes the start of the run)"
                     : d.allowed ? " (allowed: " + d.why_allowed + ")"
                                 : " (blocks the verdict)"));
  const std::string verdict =
      *report.comparable ? "Comparable: " + std::to_string(report.differences.size()) +
                               " environment item(s) differ, none that blocks a verdict."
                         : "NOT comparable: an environment item that is not the factor compared "
                           "differs (storbed compare --allow-diff ITEM if it is).";
  return HtmlParagraph(verdict) + HtmlList(items);
}

}  // namespace

std::string CompareSectionHtml(const CompareReport& report) {
  std::string out = HtmlParagraph("BASE " + report.base_name + " vs CAND " + report.cand_name +
                                  ". " + MethodSentence(report) + "; whiskers: the 95% CI.") +
                    HtmlParagraph(FamilySentence(report) + ".");
  out += EnvironmentHtml(report);
  std::vector<std::vector<std::string>> summary;
  for (const MetricSummary& m : report.metrics)
    summary.push_back({m.metric, m.verdict, std::to_string(m.worse), std::to_string(m.better),
                       std::to_string(m.cells)});
  out += HtmlHeading("Per metric over all cells") +
         HtmlTable({"metric", "verdict", "worse", "better", "cells"}, summary, 2, 4);
  for (const CellSummary& cell : report.cells) out += CellHtml(cell, report);
  if (report.cells.empty()) out += HtmlParagraph("No cell is on both sides.", "note");
  std::vector<std::string> one_side;
  for (const auto& c : report.only_base) one_side.push_back("only in BASE: " + c);
  for (const auto& c : report.only_cand) one_side.push_back("only in CAND: " + c);
  return out + HtmlList(one_side);
}

}  // namespace storbed
