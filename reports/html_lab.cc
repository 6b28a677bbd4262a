#include "reports/html_lab.h"

#include <map>

#include "reports/compare_metrics.h"
#include "reports/html_escape.h"
#include "reports/html_page.h"
#include "reports/svg_history_chart.h"

namespace storbed {
namespace {

std::string UnitOf(const std::string& metric) {
  if (metric.size() > 3 && metric.compare(metric.size() - 3, 3, "_us") == 0) return "us";
  if (metric == "iops") return "IO/s";
  return "";
}

std::string GateTable(const LabScenarioView& s) {
  std::vector<std::vector<std::string>> rows;
  for (const LabGateRow& g : s.gates)
    rows.push_back({g.host, g.fingerprint_class, g.started_at, std::to_string(g.baseline_nights),
                    std::to_string(g.other_class), g.verdict, g.detail});
  return HtmlParagraph("Tonight's gate of each host: its latest night against " + s.gate_rule +
                       ".") +
         HtmlTable({"host", "class", "tonight", "baseline nights", "skipped (another class)",
                    "verdict", "detail"},
                   rows, 3, 4);
}

// One cell and metric: a chart per host, side by side, each host named above its chart.
std::string CellHtml(const LabCellView& c) {
  std::string charts;
  for (const LabHostSeries& h : c.hosts)
    charts += "<div class=\"host\" data-host=\"" + EscapeHtml(h.host) + "\"><p class=\"note\">" +
              EscapeHtml(h.host) + "</p>" +
              RenderHistoryChart(h.series, UnitOf(c.metric), BetterPhrase(DirectionOf(c.metric))) +
              "</div>";
  std::vector<std::string> changes = c.changes;
  if (changes.empty()) changes.push_back("no change point on any host");
  return HtmlHeading(c.cell + ": " + c.metric) + HtmlFigure(charts, "") + HtmlList(changes);
}

}  // namespace

std::string LabPageHtml(const LabView& view) {
  std::vector<HtmlSection> sections;
  for (size_t i = 0; i < view.scenarios.size(); ++i) {
    const LabScenarioView& s = view.scenarios[i];
    std::string body = GateTable(s);
    body += HtmlParagraph(
        "Each host's nights of each cell, side by side (grey dots are runs, the line joins "
        "the nights' medians, the latest night ringed). A dashed line is a change point in "
        "that host's nights; a change every host shows the same night (a UTC date, or the "
        "next) is the suite's (QEMU, kernel or storbed), one host's alone is that host's.",
        "note");
    for (const LabCellView& c : s.cells) body += CellHtml(c);
    sections.push_back({"scenario-" + std::to_string(i + 1), "Scenario " + s.scenario, body});
  }
  if (sections.empty())
    sections.push_back({"empty", "No nights", HtmlParagraph(view.db + " holds no session.")});
  return HtmlPage("storbed lab: " + view.db, sections, "storbed report --lab of " + view.db);
}

}  // namespace storbed
