// The history section: per cell of tonight's run, its metrics night by night from the
// history database, with the change points found in each series.

#include <map>

#include "judging/change_scan.h"
#include "reports/compare_metrics.h"
#include "reports/html_page.h"
#include "reports/html_sections.h"
#include "reports/number_text.h"
#include "reports/svg_history_chart.h"

namespace storbed {
namespace {

// The y axis unit of a metric named like the compare metrics ("p99_us", "mib_s").
std::string UnitOf(const std::string& metric) {
  if (metric.size() > 3 && metric.compare(metric.size() - 3, 3, "_us") == 0) return "us";
  if (metric == "mib_s") return "MiB/s";
  if (metric == "iops") return "IO/s";
  return "";
}

std::string ChangeText(const HistorySeries& s, const HistoryChange& c) {
  const HistoryNight& night = s.nights[c.night];
  return s.metric + ": change at night " + std::to_string(c.night + 1) + " (" +
         night.started_at + ", revision " + night.revision.substr(0, 12) + "): " +
         FormatNumber(c.before) + " -> " + FormatNumber(c.after) + ", ratio " +
         FormatNumber(c.ratio, "%.3f") + ", p " + FormatNumber(c.p, "%.2g");
}

}  // namespace

std::string HistorySectionHtml(const HistoryView& view) {
  const size_t nights = view.series.empty() ? 0 : view.series.front().nights.size();
  std::string intro = "From " + view.db + ": " + std::to_string(nights) +
                      " nights of scenario " + view.scenario;
  intro += view.tonight_imported
               ? ". Tonight is the ringed night."
               : ". Tonight is not in the history: it is drawn last, ringed.";
  std::string out = HtmlParagraph(intro);
  const ChangeScanOptions rule;  // the report finds change points with the defaults
  out += HtmlParagraph(
      "Grey dots are runs (a night's repeats), the line joins the nights' medians. A dashed "
      "line marks a change point: the nights' medians before and after it differ more than "
      "reordering the nights makes them (p <= " + FormatNumber(rule.max_p, "%g") +
          " for the largest difference the scan finds), with at least " +
          std::to_string(rule.min_nights) + " nights a segment, so one odd night is not a " +
          "change, and medians at least " + FormatNumber(rule.min_change * 100, "%g") +
          "% apart. A dotted line (env) marks a night whose environment (host, QEMU, "
          "kernels, argv: storbed compare's gate) differs from the night before's.",
      "note");
  if (!view.series.empty()) {
    std::vector<std::string> environment;
    const auto& first = view.series.front().nights;
    for (size_t i = 0; i < first.size(); ++i)
      if (first[i].environment_changed)
        environment.push_back("night " + std::to_string(i + 1) + " (" + first[i].started_at +
                              ", revision " + first[i].revision.substr(0, 12) +
                              "): the environment differs from the night before's");
    out += HtmlList(environment);
  }
  if (view.series.empty())
    return out + HtmlParagraph("No cell of this run has a measured run in the history.", "note");
  std::map<std::string, std::vector<const HistorySeries*>> by_cell;
  std::vector<std::string> order;
  for (const HistorySeries& s : view.series) {
    if (!by_cell.count(s.cell)) order.push_back(s.cell);
    by_cell[s.cell].push_back(&s);
  }
  for (const std::string& cell : order) {
    std::string charts;
    std::vector<std::string> changes;
    for (const HistorySeries* s : by_cell[cell]) {
      charts += RenderHistoryChart(*s, UnitOf(s->metric), BetterPhrase(DirectionOf(s->metric)));
      for (const HistoryChange& c : s->changes) changes.push_back(ChangeText(*s, c));
      if (s->changes.empty()) changes.push_back(s->metric + ": no change point");
    }
    out += HtmlHeading(cell) + HtmlFigure(charts, "") + HtmlList(changes);
  }
  return out;
}

}  // namespace storbed
