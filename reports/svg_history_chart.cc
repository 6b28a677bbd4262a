#include "reports/svg_history_chart.h"

#include <algorithm>
#include <cmath>

#include "analysis/run_stats.h"
#include "reports/number_text.h"
#include "reports/svg_axes.h"

namespace storbed {
namespace {

constexpr double kHeight = 170;
constexpr const char* kRunDot = "#999";
constexpr const char* kChange = "#D55E00";

std::string Circle(double x, double y, double r, const std::string& fill,
                   const std::string& extra = "") {
  return "<circle cx=\"" + Px(x) + "\" cy=\"" + Px(y) + "\" r=\"" + Px(r) + "\" fill=\"" + fill +
         "\"" + (extra.empty() ? "" : " " + extra) + "/>\n";
}

}  // namespace

std::string RenderHistoryChart(const HistorySeries& series, const std::string& unit,
                               const std::string& note) {
  const std::string title = series.cell + ": " + series.metric;
  const PlotArea plot{66, 40, kHistoryChartWidth - 12, kHeight - 44};
  const size_t n = series.nights.size();
  double lo = INFINITY, hi = -INFINITY;
  for (const HistoryNight& night : series.nights)
    for (double v : night.values)
      if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
  std::string body = Heading(8, 18, title, note);
  if (lo > hi) {
    body += SvgText(plot.left, plot.top + 20, "no measured run in any night", "start",
                    "fill=\"#777\" font-style=\"italic\"");
    return SvgOpen("history", title, kHistoryChartWidth, plot.top + 40) + body + SvgClose();
  }
  // Levels, not zero, are what a night-to-night chart compares: the axis spans the data.
  const Scale x{LinearTicks(1, std::max<double>(2, double(n)), 4), plot.left, plot.right};
  const Scale y{LinearTicks(lo, hi, 4), plot.bottom, plot.top};
  body += YAxis(plot, y, AxisTitle(AxisSpec{series.metric, unit, false, {}, {}}));
  body += XAxis(plot, x, "night");
  for (size_t i = 0; i < n; ++i) {
    if (!series.nights[i].environment_changed) continue;
    const double at = x.At(double(i) + 0.5);
    body += "<line x1=\"" + Px(at) + "\" y1=\"" + Px(plot.top) + "\" x2=\"" + Px(at) +
            "\" y2=\"" + Px(plot.bottom) + "\" stroke=\"#777\" stroke-dasharray=\"1 3\" " +
            "data-environment-night=\"" + std::to_string(i + 1) + "\"/>\n";
    body += SvgText(at + 3, plot.bottom - 4, "env", "start", "fill=\"#777\"");
  }
  for (const HistoryChange& c : series.changes) {
    const double at = x.At(double(c.night) + 0.5);  // between the last old night and the first new
    body += "<line x1=\"" + Px(at) + "\" y1=\"" + Px(plot.top) + "\" x2=\"" + Px(at) +
            "\" y2=\"" + Px(plot.bottom) + "\" stroke=\"" + kChange +
            "\" stroke-dasharray=\"4 3\" data-change-night=\"" + std::to_string(c.night + 1) +
            "\"/>\n";
    body += SvgText(at + 3, plot.top + 11, "x" + FormatNumber(c.ratio, "%.3f"), "start",
                    std::string("fill=\"") + kChange + "\"");
  }
  std::string medians;
  for (size_t i = 0; i < n; ++i) {
    const HistoryNight& night = series.nights[i];
    if (night.values.empty()) continue;
    const double nx = x.At(double(i + 1));
    for (double v : night.values) body += Circle(nx, y.At(v), 1.8, kRunDot);
    const double m = Median(night.values);
    medians += (medians.empty() ? "" : " ") + Px(nx) + "," + Px(y.At(m));
    if (night.tonight)
      body += Circle(nx, y.At(m), 5, "none",
                     "stroke=\"" + SeriesColour(1) + "\" stroke-width=\"2\" data-tonight=\"1\"");
  }
  body += "<polyline fill=\"none\" stroke=\"" + SeriesColour(0) +
          "\" stroke-width=\"1.5\" points=\"" + medians + "\"/>\n";
  return SvgOpen("history", title, kHistoryChartWidth, kHeight) + body + SvgClose();
}

}  // namespace storbed
