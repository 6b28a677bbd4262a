// What every report chart is drawn from: value-to-pixel scales with "nice" ticks (1, 2,
// 2.5, 5 x 10^k, or powers of ten on a log axis), axes with grid lines, tick labels and a
// title with its unit, the <svg> frame, headings and legends. Presentation is inline
// attributes, so a chart copied out of the page still draws; all text is escaped here.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace storbed {

// What an axis shows. The title reads "label (unit)".
struct AxisSpec {
  std::string label, unit;
  bool log = false;
  std::optional<double> min, max;  // fixed ends (0..100 %); else from the data
};

struct Ticks {
  double lo = 0, hi = 1;       // the axis' ends: the outer ticks
  std::vector<double> values;  // ascending, lo and hi included
};

// Ticks covering [lo, hi] in about `target` steps of 1, 2, 2.5 or 5 x 10^k. An empty range
// (lo == hi) is widened around its value.
Ticks LinearTicks(double lo, double hi, int target = 5);

// Powers of ten covering [lo, hi] (both > 0; smaller values are raised to 1e-3); within
// fewer than three decades 2 and 5 of each decade too.
Ticks LogTicks(double lo, double hi);

// The ticks of `axis` for data in [lo, hi]: its fixed ends win over the data's.
Ticks TicksFor(const AxisSpec& axis, double lo, double hi);

// Short labels: "0", "0.25", "12", "1.5k", "2M", "1e-03"; integers below 10000 in full.
std::string TickLabel(double v);

// About how wide `text` is drawn at the charts' 12 px sans-serif, to size label columns.
double TextWidth(const std::string& text);

// "label (unit)", or the label alone without a unit.
std::string AxisTitle(const AxisSpec& axis);

// Maps values of [ticks.lo, ticks.hi] onto [px_lo, px_hi] (px_hi < px_lo for a y axis);
// values outside are clamped, so a stray sample stays inside the plot.
struct Scale {
  Ticks ticks;
  double px_lo = 0, px_hi = 1;
  bool log = false;
  double At(double v) const;
};

struct PlotArea {
  double left = 0, top = 0, right = 0, bottom = 0;
};

// "%.1f" for coordinates: a pixel's tenth is all a screen shows.
std::string Px(double v);

// <svg> with its size, the chart's kind as data-chart (tests and readers find charts by
// it) and a <title> for screen readers; SvgClose ends it.
std::string SvgOpen(const std::string& kind, const std::string& title, double width, double height);
std::string SvgClose();

// A text element; `extra` is more attributes, already escaped ("font-weight=\"bold\"").
std::string SvgText(double x, double y, const std::string& text,
                    const std::string& anchor = "start", const std::string& extra = "");

// The chart's title in bold at (x, y) and, after it in grey, the note that says which way
// is better ("higher is better").
std::string Heading(double x, double y, const std::string& title, const std::string& note);

// The horizontal axis along the plot's bottom: a grid line and a tick per value, tick
// labels (unless !labels: a stacked panel above another) and the axis title centred below.
std::string XAxis(const PlotArea& plot, const Scale& x, const std::string& title,
                  bool labels = true);
// The vertical axis along the plot's left: grid lines, tick labels, the title rotated.
std::string YAxis(const PlotArea& plot, const Scale& y, const std::string& title);

// Colour i of a palette that stays apart for colour-blind readers (Okabe-Ito).
std::string SeriesColour(size_t i);

// Swatch and name per entry, wrapped into rows within `width` from (x, y); returns the
// markup and sets *height to the rows' height (0 for no names).
std::string Legend(double x, double y, double width, const std::vector<std::string>& names,
                   double* height);

}  // namespace storbed
