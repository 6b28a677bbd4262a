// The report's three kinds of chart as inline SVG, each one <svg> element with a title,
// axes with tick labels and units, and a note saying which way is better:
//   line charts: panels stacked on one shared x axis (a run's timelines on one time axis,
//     latency CDFs on a log axis);
//   bar charts: horizontal bars, groups top down (the depth ladder, app above host device);
//   whisker charts: a point and its interval per row around a reference line with a
//     shaded band (compare ratios with their 95% CI and the noise band around 1.0);
//   waterfall charts: per row a span that starts where the row above ended, one span per
//     series (where a traced IO's time went, segment by segment).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "reports/svg_axes.h"

namespace storbed {

// Width of every chart in px: fits a laptop screen and a printed A4 page.
inline constexpr double kChartWidth = 900;

struct Series {
  std::string name;
  std::vector<double> x, y;  // same length; points in drawing order
};

struct Panel {
  std::string title;  // "IOPS"
  std::string note;   // "higher is better"
  AxisSpec y;
  std::vector<Series> series;
  std::string empty_text = "no samples";  // drawn in the plot when no series has a point
};

struct LineChart {
  std::string kind;   // data-chart: "timelines", "latency-cdf"
  std::string title;  // the <title>, and the heading when there are several panels
  AxisSpec x;
  std::vector<Panel> panels;  // top down, all on the x axis of the bottom one
};

// Series with more points than the plot has pixels keep each pixel column's first, lowest,
// highest and last point, so a 10 ms sampler over minutes stays a small, faithful path.
std::string RenderLineChart(const LineChart& chart);

struct Bar {
  std::optional<double> value;
  std::string missing;  // shown instead of a bar when there is no value: "n/a: why"
};

struct BarGroup {
  std::string label;      // "L1 guest block"
  std::vector<Bar> bars;  // one per series
};

struct BarChart {
  std::string kind, title, note;
  AxisSpec value;  // the bars' axis (horizontal); starts at 0 unless min is set
  std::vector<std::string> series;
  std::vector<BarGroup> groups;  // top down
};

std::string RenderBarChart(const BarChart& chart);

struct Whisker {
  std::string label;  // "iops (higher is better)"
  std::optional<double> value, low, high;
  std::string verdict;  // right of the plot
  std::string colour;   // "" for the first series colour
};

struct WhiskerChart {
  std::string kind, title, note;
  AxisSpec x;
  double reference = 1;                // the vertical line
  double band_low = 1, band_high = 1;  // shaded: "no change" lies within
  std::vector<Whisker> rows;
};

std::string RenderWhiskerChart(const WhiskerChart& chart);

struct Span {
  double start = 0, length = 0;
};

struct WaterfallRow {
  std::string label;        // "to QEMU"
  std::vector<Span> spans;  // one per series
};

struct WaterfallChart {
  std::string kind, title, note;
  AxisSpec x;  // time from the IO's submit
  std::vector<std::string> series;  // "median IO (962 us)", ...
  std::vector<WaterfallRow> rows;   // top down, in path order
};

std::string RenderWaterfallChart(const WaterfallChart& chart);

}  // namespace storbed
