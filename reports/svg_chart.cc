#include "reports/svg_chart.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "reports/html_escape.h"

namespace storbed {
namespace {

constexpr double kLeft = 80, kRight = 20;  // room for y tick labels and the rotated title
constexpr double kPanelHeight = 140;       // one line chart panel's plot
constexpr double kBarHeight = 14, kBarGap = 3, kGroupGap = 10;
constexpr double kRowHeight = 24;  // one whisker row
constexpr const char* kMuted = "#777";

struct Range {
  double lo = std::numeric_limits<double>::infinity();
  double hi = -std::numeric_limits<double>::infinity();
  void Add(double v) {
    if (!std::isfinite(v)) return;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  bool empty() const { return lo > hi; }
};

// The value printed at a bar's end: depth 0.04 must not read 0.0, IOPS need no decimals.
std::string BarValue(double v) {
  char buf[32];
  const double a = std::fabs(v);
  std::snprintf(buf, sizeof buf, a >= 100 ? "%.0f" : a >= 1 ? "%.1f" : "%.2f", v);
  return buf;
}

// The data range of an axis: from 0 (bars and counts read against zero) unless the axis
// is log or the data go below it.
Ticks AxisTicks(const AxisSpec& axis, Range r) {
  if (r.empty()) r = {axis.log ? 1.0 : 0.0, axis.log ? 10.0 : 1.0};
  if (!axis.log) r.lo = std::min(r.lo, 0.0);
  return TicksFor(axis, r.lo, r.hi);
}

// The points of `s` to draw, finite ones only: all of them, or per pixel column the first,
// lowest, highest and last, in their order.
std::vector<size_t> PointsToDraw(const Series& s, const Scale& x) {
  const size_t n = std::min(s.x.size(), s.y.size());
  std::vector<size_t> finite;
  for (size_t i = 0; i < n; ++i)
    if (std::isfinite(s.x[i]) && std::isfinite(s.y[i])) finite.push_back(i);
  if (double(finite.size()) <= 2 * std::fabs(x.px_hi - x.px_lo)) return finite;
  std::vector<size_t> keep;
  for (size_t k = 0; k < finite.size();) {
    const long column = std::lround(x.At(s.x[finite[k]]));
    size_t first = finite[k], low = first, high = first, last = first;
    for (; k < finite.size() && std::lround(x.At(s.x[finite[k]])) == column; ++k) {
      const size_t i = finite[k];
      if (s.y[i] < s.y[low]) low = i;
      if (s.y[i] > s.y[high]) high = i;
      last = i;
    }
    std::vector<size_t> column_points = {first, low, high, last};
    std::sort(column_points.begin(), column_points.end());
    column_points.erase(std::unique(column_points.begin(), column_points.end()),
                        column_points.end());
    keep.insert(keep.end(), column_points.begin(), column_points.end());
  }
  return keep;
}

std::string Polyline(const Series& s, const Scale& x, const Scale& y, const std::string& colour) {
  std::string points;
  for (size_t i : PointsToDraw(s, x))
    points += (points.empty() ? "" : " ") + Px(x.At(s.x[i])) + "," + Px(y.At(s.y[i]));
  if (points.empty()) return "";
  return "<polyline fill=\"none\" stroke=\"" + colour +
         "\" stroke-width=\"1.5\" stroke-linejoin=\"round\" points=\"" + points + "\"/>\n";
}

std::string Rect(double x, double y, double w, double h, const std::string& fill,
                 const std::string& extra = "") {
  return "<rect x=\"" + Px(x) + "\" y=\"" + Px(y) + "\" width=\"" + Px(std::max(0.0, w)) +
         "\" height=\"" + Px(h) + "\" fill=\"" + fill + "\"" + (extra.empty() ? "" : " " + extra) +
         "/>\n";
}

std::string Line(double x1, double y1, double x2, double y2, const std::string& stroke,
                 const std::string& extra = "") {
  return "<line x1=\"" + Px(x1) + "\" y1=\"" + Px(y1) + "\" x2=\"" + Px(x2) + "\" y2=\"" + Px(y2) +
         "\" stroke=\"" + stroke + "\"" + (extra.empty() ? "" : " " + extra) + "/>\n";
}

}  // namespace

std::string RenderLineChart(const LineChart& chart) {
  const double right = kChartWidth - kRight;
  Range xr;
  for (const Panel& p : chart.panels)
    for (const Series& s : p.series)
      for (double v : s.x)
        if (!chart.x.log || v > 0) xr.Add(v);
  if (!chart.x.log && !xr.empty()) xr.lo = std::min(xr.lo, 0.0);
  if (xr.empty()) xr = {chart.x.log ? 1.0 : 0.0, chart.x.log ? 10.0 : 1.0};
  const Scale x{TicksFor(chart.x, xr.lo, xr.hi), kLeft, right, chart.x.log};

  std::string body;
  double cursor = 0;
  if (chart.panels.size() > 1) {
    body += Heading(8, 20, chart.title, "");
    cursor = 28;
  }
  for (size_t i = 0; i < chart.panels.size(); ++i) {
    const Panel& panel = chart.panels[i];
    const bool bottom_panel = i + 1 == chart.panels.size();
    body +=
        Heading(8, cursor + 18, chart.panels.size() > 1 ? panel.title : chart.title, panel.note);
    std::vector<std::string> names;
    for (const Series& s : panel.series) names.push_back(s.name);
    double legend_height = 0;
    body += Legend(kLeft, cursor + 28, right - kLeft, names, &legend_height);
    const PlotArea plot{kLeft, cursor + 34 + legend_height, right,
                        cursor + 34 + legend_height + kPanelHeight};
    Range yr;
    for (const Series& s : panel.series)
      for (size_t k = 0; k < s.y.size(); ++k)
        if (!panel.y.log || s.y[k] > 0) yr.Add(s.y[k]);
    const bool empty = yr.empty();
    const Scale y{AxisTicks(panel.y, yr), plot.bottom, plot.top, panel.y.log};
    body += YAxis(plot, y, AxisTitle(panel.y));
    body += XAxis(plot, x, AxisTitle(chart.x), bottom_panel);
    if (empty)
      body += SvgText((plot.left + plot.right) / 2, (plot.top + plot.bottom) / 2, panel.empty_text,
                      "middle", std::string("fill=\"") + kMuted + "\"");
    for (size_t k = 0; k < panel.series.size(); ++k)
      body += Polyline(panel.series[k], x, y, SeriesColour(k));
    cursor = plot.bottom + (bottom_panel ? 48 : 12);
  }
  return SvgOpen(chart.kind, chart.title, kChartWidth, cursor) + body + SvgClose();
}

namespace {

// The frame of a chart of labelled groups of horizontal bars (bar and waterfall charts):
// heading and legend into `body`, and a plot area tall enough for every group's bars.
PlotArea GroupedBarsFrame(const std::string& title, const std::string& note,
                          const std::vector<std::string>& series, double left, double right,
                          const std::vector<size_t>& bars_per_group, std::string& body) {
  body += Heading(8, 20, title, note);
  double legend_height = 0;
  body += Legend(left, 30, right - left, series, &legend_height);
  const double top = 38 + legend_height;
  double height = 0;
  for (const size_t bars : bars_per_group) height += kGroupGap + double(bars) * (kBarHeight + kBarGap);
  return {left, top, right, top + std::max(height + kGroupGap, 30.0)};
}

}  // namespace

std::string RenderBarChart(const BarChart& chart) {
  const double left = 170, right = kChartWidth - kRight - 50;  // room for the value labels
  std::vector<size_t> bars;
  for (const BarGroup& g : chart.groups) bars.push_back(g.bars.size());
  std::string body;
  const PlotArea plot = GroupedBarsFrame(chart.title, chart.note, chart.series, left, right, bars, body);
  Range r;
  for (const BarGroup& g : chart.groups)
    for (const Bar& b : g.bars)
      if (b.value) r.Add(*b.value);
  const Scale x{AxisTicks(chart.value, r), left, right, chart.value.log};
  body += XAxis(plot, x, AxisTitle(chart.value));
  body += Line(left, plot.top, left, plot.bottom, "#333");
  const double zero = x.At(chart.value.log ? x.ticks.lo : 0.0);
  double y = plot.top + kGroupGap;
  for (const BarGroup& g : chart.groups) {
    const double group_height = double(g.bars.size()) * (kBarHeight + kBarGap);
    body += SvgText(left - 8, y + group_height / 2 + 4, g.label, "end");
    for (size_t i = 0; i < g.bars.size(); ++i) {
      const Bar& b = g.bars[i];
      if (b.value) {
        const double end = x.At(*b.value);
        body += Rect(std::min(zero, end), y, std::fabs(end - zero), kBarHeight, SeriesColour(i));
        body += SvgText(std::max(zero, end) + 4, y + kBarHeight - 3, BarValue(*b.value));
      } else {
        body += SvgText(zero + 4, y + kBarHeight - 3, b.missing.empty() ? "n/a" : b.missing,
                        "start", std::string("fill=\"") + kMuted + "\" font-style=\"italic\"");
      }
      y += kBarHeight + kBarGap;
    }
    y += kGroupGap;
  }
  return SvgOpen(chart.kind, chart.title, kChartWidth, plot.bottom + 48) + body + SvgClose();
}

std::string RenderWaterfallChart(const WaterfallChart& chart) {
  double longest = 0;
  for (const WaterfallRow& r : chart.rows) longest = std::max(longest, TextWidth(r.label));
  const double left = std::clamp(longest + 20, 120.0, 300.0);
  const double right = kChartWidth - kRight - 60;  // room for the span labels
  std::vector<size_t> bars;
  for (const WaterfallRow& r : chart.rows) bars.push_back(r.spans.size());
  std::string body;
  const PlotArea plot = GroupedBarsFrame(chart.title, chart.note, chart.series, left, right, bars, body);
  Range range;
  range.Add(0);
  for (const WaterfallRow& r : chart.rows)
    for (const Span& s : r.spans) range.Add(s.start + std::max(0.0, s.length));
  const Scale x{AxisTicks(chart.x, range), left, right, false};
  body += XAxis(plot, x, AxisTitle(chart.x));
  body += Line(left, plot.top, left, plot.bottom, "#333");
  double y = plot.top + kGroupGap;
  for (const WaterfallRow& r : chart.rows) {
    const double group_height = double(r.spans.size()) * (kBarHeight + kBarGap);
    body += SvgText(left - 8, y + group_height / 2 + 4, r.label, "end");
    for (size_t i = 0; i < r.spans.size(); ++i) {
      const Span& s = r.spans[i];
      const double from = x.At(s.start), to = x.At(s.start + std::max(0.0, s.length));
      // A step of a microsecond or less is still drawn: the reader sees it was there.
      body += Rect(from, y, std::max(1.0, to - from), kBarHeight, SeriesColour(i));
      body += SvgText(std::max(from, to) + 4, y + kBarHeight - 3, BarValue(s.length));
      y += kBarHeight + kBarGap;
    }
    y += kGroupGap;
  }
  return SvgOpen(chart.kind, chart.title, kChartWidth, plot.bottom + 48) + body + SvgClose();
}

std::string RenderWhiskerChart(const WhiskerChart& chart) {
  // The label column as wide as the longest label (within reason); verdicts at the right.
  double longest = 0;
  for (const Whisker& w : chart.rows) longest = std::max(longest, TextWidth(w.label));
  const double left = std::clamp(longest + 20, 120.0, 420.0);
  const double right = kChartWidth - kRight - 130;
  std::string body = Heading(8, 20, chart.title, chart.note);
  const double top = 34;
  const PlotArea plot{left, top, right,
                      top + std::max(1.0, double(chart.rows.size())) * kRowHeight};
  Range r;
  for (double v : {chart.reference, chart.band_low, chart.band_high}) r.Add(v);
  for (const Whisker& w : chart.rows)
    for (const auto& v : {w.value, w.low, w.high})
      if (v) r.Add(*v);
  // A little room beyond the widest interval, so its caps are not on the frame.
  const double pad = (r.hi - r.lo) * 0.08 + 1e-3;
  // Ratios are never negative: no axis below 0 for them.
  const double lo = r.lo >= 0 ? std::max(0.0, r.lo - pad) : r.lo - pad;
  const Scale x{TicksFor(chart.x, lo, r.hi + pad), left, right, false};
  body += Rect(x.At(chart.band_low), plot.top, x.At(chart.band_high) - x.At(chart.band_low),
               plot.bottom - plot.top, "#e8e8e8");
  body += XAxis(plot, x, AxisTitle(chart.x));
  body += Line(x.At(chart.reference), plot.top, x.At(chart.reference), plot.bottom, "#333",
               "stroke-dasharray=\"4 3\"");
  for (size_t i = 0; i < chart.rows.size(); ++i) {
    const Whisker& w = chart.rows[i];
    const double cy = top + double(i) * kRowHeight + kRowHeight / 2;
    const std::string colour = w.colour.empty() ? SeriesColour(0) : w.colour;
    body += SvgText(left - 8, cy + 4, w.label, "end");
    if (w.low && w.high) {
      const double lo = x.At(*w.low), hi = x.At(*w.high);
      body += Line(lo, cy, hi, cy, colour, "stroke-width=\"2\"");
      body += Line(lo, cy - 5, lo, cy + 5, colour, "stroke-width=\"2\"");
      body += Line(hi, cy - 5, hi, cy + 5, colour, "stroke-width=\"2\"");
    }
    if (w.value)
      body += "<circle cx=\"" + Px(x.At(*w.value)) + "\" cy=\"" + Px(cy) + "\" r=\"4\" fill=\"" +
              colour + "\"/>\n";
    else
      body += SvgText(left + 6, cy + 4, "no ratio", "start",
                      std::string("fill=\"") + kMuted + "\" font-style=\"italic\"");
    body += SvgText(right + 10, cy + 4, w.verdict);
  }
  return SvgOpen(chart.kind, chart.title, kChartWidth, plot.bottom + 48) + body + SvgClose();
}

}  // namespace storbed
