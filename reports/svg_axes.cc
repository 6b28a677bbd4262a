#include "reports/svg_axes.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "number_format.h"
#include "reports/html_escape.h"

namespace storbed {
namespace {

constexpr double kCharWidth = 7;  // px of one character at the charts' 12 px sans-serif
constexpr const char* kGrid = "#e4e4e4";
constexpr const char* kInk = "#333";

// Removes the float noise of i * step (0.6000000000000001) so a tick is the number the
// step meant.
double Tidy(double v) { return std::stod(FormatDouble(v, "%.12g")); }

}  // namespace

Ticks LinearTicks(double lo, double hi, int target) {
  if (!std::isfinite(lo) || !std::isfinite(hi)) lo = 0, hi = 1;
  if (lo > hi) std::swap(lo, hi);
  if (hi == lo) {
    const double half = lo == 0 ? 0.5 : std::fabs(lo) / 2;
    hi = lo + half;
    lo = lo == 0 ? 0 : lo - half;
  }
  const double raw = (hi - lo) / std::max(1, target);
  const double magnitude = std::pow(10, std::floor(std::log10(raw)));
  double step = 10 * magnitude;
  for (double m : {1.0, 2.0, 2.5, 5.0})
    if (m * magnitude >= raw * (1 - 1e-9)) {
      step = m * magnitude;
      break;
    }
  Ticks t;
  const double first = std::floor(lo / step + 1e-9), last = std::ceil(hi / step - 1e-9);
  for (double i = first; i <= last; ++i) t.values.push_back(Tidy(i * step));
  t.lo = t.values.front();
  t.hi = t.values.back();
  return t;
}

Ticks LogTicks(double lo, double hi) {
  lo = std::max(std::isfinite(lo) ? lo : 1.0, 1e-3);
  hi = std::max(std::isfinite(hi) ? hi : lo, lo);
  const int first = int(std::floor(std::log10(lo) + 1e-9));
  int last = int(std::ceil(std::log10(hi) - 1e-9));
  if (last <= first) last = first + 1;
  Ticks t;
  for (int d = first; d <= last; ++d) {
    const double decade = std::pow(10, d);
    t.values.push_back(decade);
    if (last - first < 3 && d < last) {
      t.values.push_back(2 * decade);
      t.values.push_back(5 * decade);
    }
  }
  t.lo = t.values.front();
  t.hi = t.values.back();
  return t;
}

Ticks TicksFor(const AxisSpec& axis, double lo, double hi) {
  if (axis.min) lo = *axis.min;
  if (axis.max) hi = *axis.max;
  Ticks t = axis.log ? LogTicks(lo, hi) : LinearTicks(lo, hi);
  // Fixed ends are the ends, even where a nice step would reach past them.
  if (axis.min || axis.max) {
    std::erase_if(t.values, [&](double v) {
      return (axis.min && v < *axis.min - 1e-9) || (axis.max && v > *axis.max + 1e-9);
    });
    if (axis.min) t.lo = *axis.min;
    if (axis.max) t.hi = *axis.max;
    if (t.values.empty()) t.values = {t.lo, t.hi};
  }
  return t;
}

std::string TickLabel(double v) {
  if (std::fabs(v) < 1e-12) return "0";
  const double a = std::fabs(v);
  if (a >= 1e6) return FormatDouble(v / 1e6, "%.4g") + "M";
  if (a >= 1e4) return FormatDouble(v / 1e3, "%.4g") + "k";
  if (a < 1e-3) return FormatDouble(v, "%.0e");
  return FormatDouble(v, "%.4g");
}

double TextWidth(const std::string& text) { return kCharWidth * double(text.size()); }

std::string AxisTitle(const AxisSpec& axis) {
  return axis.unit.empty() ? axis.label : axis.label + " (" + axis.unit + ")";
}

double Scale::At(double v) const {
  double f;
  if (log) {
    const double l = std::log10(ticks.lo), h = std::log10(ticks.hi);
    f = (std::log10(std::clamp(v, ticks.lo, ticks.hi)) - l) / (h - l);
  } else {
    f = (std::clamp(v, ticks.lo, ticks.hi) - ticks.lo) / (ticks.hi - ticks.lo);
  }
  if (!std::isfinite(f)) f = 0;
  return px_lo + f * (px_hi - px_lo);
}

std::string Px(double v) { return FormatDouble(v, "%.1f"); }

std::string SvgOpen(const std::string& kind, const std::string& title, double width,
                    double height) {
  const std::string w = Px(width), h = Px(height);
  return "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" data-chart=\"" +
         EscapeHtml(kind) + "\" width=\"" + w + "\" height=\"" + h + "\" viewBox=\"0 0 " + w + " " +
         h + "\" role=\"img\" aria-label=\"" + EscapeHtml(title) +
         "\" font-family=\"sans-serif\" font-size=\"12\" fill=\"" + kInk + "\">\n<title>" +
         EscapeHtml(title) + "</title>\n";
}

std::string SvgClose() { return "</svg>\n"; }

std::string SvgText(double x, double y, const std::string& text, const std::string& anchor,
                    const std::string& extra) {
  return "<text x=\"" + Px(x) + "\" y=\"" + Px(y) + "\" text-anchor=\"" + anchor + "\"" +
         (extra.empty() ? "" : " " + extra) + ">" + EscapeHtml(text) + "</text>\n";
}

std::string Heading(double x, double y, const std::string& title, const std::string& note) {
  std::string out = "<text x=\"" + Px(x) + "\" y=\"" + Px(y) +
                    "\" font-size=\"14\" font-weight=\"bold\">" + EscapeHtml(title);
  if (!note.empty())
    out += "<tspan dx=\"10\" font-size=\"12\" font-weight=\"normal\" fill=\"#666\">" +
           EscapeHtml(note) + "</tspan>";
  return out + "</text>\n";
}

std::string XAxis(const PlotArea& p, const Scale& x, const std::string& title, bool labels) {
  std::string out;
  for (double v : x.ticks.values) {
    const std::string at = Px(x.At(v));
    out += "<line x1=\"" + at + "\" y1=\"" + Px(p.top) + "\" x2=\"" + at + "\" y2=\"" +
           Px(p.bottom) + "\" stroke=\"" + kGrid + "\"/>\n";
    out += "<line x1=\"" + at + "\" y1=\"" + Px(p.bottom) + "\" x2=\"" + at + "\" y2=\"" +
           Px(p.bottom + 4) + "\" stroke=\"" + kInk + "\"/>\n";
    if (labels) out += SvgText(x.At(v), p.bottom + 17, TickLabel(v), "middle");
  }
  out += "<line x1=\"" + Px(p.left) + "\" y1=\"" + Px(p.bottom) + "\" x2=\"" + Px(p.right) +
         "\" y2=\"" + Px(p.bottom) + "\" stroke=\"" + kInk + "\"/>\n";
  if (labels && !title.empty())
    out += SvgText((p.left + p.right) / 2, p.bottom + 35, title, "middle");
  return out;
}

std::string YAxis(const PlotArea& p, const Scale& y, const std::string& title) {
  std::string out;
  for (double v : y.ticks.values) {
    const std::string at = Px(y.At(v));
    out += "<line x1=\"" + Px(p.left) + "\" y1=\"" + at + "\" x2=\"" + Px(p.right) + "\" y2=\"" +
           at + "\" stroke=\"" + kGrid + "\"/>\n";
    out += SvgText(p.left - 6, y.At(v) + 4, TickLabel(v), "end");
  }
  out += "<line x1=\"" + Px(p.left) + "\" y1=\"" + Px(p.top) + "\" x2=\"" + Px(p.left) +
         "\" y2=\"" + Px(p.bottom) + "\" stroke=\"" + kInk + "\"/>\n";
  const double cx = p.left - 48, cy = (p.top + p.bottom) / 2;
  out += "<text transform=\"translate(" + Px(cx) + "," + Px(cy) +
         ") rotate(-90)\" text-anchor=\"middle\">" + EscapeHtml(title) + "</text>\n";
  return out;
}

std::string SeriesColour(size_t i) {
  static const char* const kPalette[] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7",
                                         "#E69F00", "#56B4E9", "#000000", "#8C6D31"};
  return kPalette[i % (sizeof kPalette / sizeof kPalette[0])];
}

std::string Legend(double x, double y, double width, const std::vector<std::string>& names,
                   double* height) {
  std::string out;
  double cx = x, cy = y;
  for (size_t i = 0; i < names.size(); ++i) {
    const double w = 18 + TextWidth(names[i]) + 14;
    if (cx > x && cx + w > x + width) {
      cx = x;
      cy += 16;
    }
    out += "<rect x=\"" + Px(cx) + "\" y=\"" + Px(cy) + "\" width=\"12\" height=\"12\" fill=\"" +
           SeriesColour(i) + "\"/>\n";
    out += SvgText(cx + 16, cy + 10, names[i]);
    cx += w;
  }
  *height = names.empty() ? 0 : cy - y + 16;
  return out;
}

}  // namespace storbed
