#include "reports/svg_chart.h"

#include <gtest/gtest.h>

#include <cmath>

#include "reports/markup_check_for_test.h"

namespace storbed {
namespace {

using testing_support::MarkupProblem;
using testing_support::Occurrences;

Series Ramp(const std::string& name, size_t n, double slope) {
  Series s{name, {}, {}};
  for (size_t i = 0; i < n; ++i) {
    s.x.push_back(double(i) / 10);
    s.y.push_back(slope * double(i));
  }
  return s;
}

// The points attribute of the first polyline: how many points were drawn.
size_t PointsOfFirstPolyline(const std::string& svg) {
  const size_t at = svg.find("points=\"");
  if (at == std::string::npos) return 0;
  const std::string points = svg.substr(at + 8, svg.find('"', at + 8) - at - 8);
  return Occurrences(points, ",");
}

LineChart TwoPanels() {
  return {"timelines",
          "001-virtio-blk-r over its IO phase",
          {"time since the IO phase began", "s", false, {}, {}},
          {{"In flight",
            "",
            {"requests", "requests", false, {}, {}},
            {Ramp("guest.vda.inflight", 30, 1)}},
           {"IOPS",
            "higher is better",
            {"IOPS", "IO/s", false, {}, {}},
            {Ramp("guest.vda.iops", 30, 100), Ramp("qemu.d0.iops", 30, 90)}}}};
}

TEST(SvgChartTest, StackedPanelsShareOneTimeAxisLabelledOnceAtTheBottom) {
  const std::string svg = RenderLineChart(TwoPanels());
  EXPECT_EQ(MarkupProblem(svg), "");
  EXPECT_EQ(Occurrences(svg, "<svg"), 1u);
  EXPECT_EQ(Occurrences(svg, "<polyline"), 3u);
  EXPECT_EQ(Occurrences(svg, ">time since the IO phase began (s)<"), 1u);
  EXPECT_EQ(Occurrences(svg, ">3<"), 1u);  // the last x tick, labelled on the bottom panel only
  for (const char* text : {">001-virtio-blk-r over its IO phase<", "In flight", "IOPS",
                           ">higher is better<", ">requests (requests)<", ">IOPS (IO/s)<",
                           ">guest.vda.iops<", ">qemu.d0.iops<", ">3000<" /* IOPS' top tick */})
    EXPECT_NE(svg.find(text), std::string::npos) << text << "\n" << svg;
}

TEST(SvgChartTest, APanelWithoutSamplesSaysSoInsteadOfDrawingNothing) {
  LineChart chart = TwoPanels();
  chart.panels[0].series.clear();
  chart.panels[0].empty_text = "not sampled on bare metal";
  const std::string svg = RenderLineChart(chart);
  EXPECT_EQ(MarkupProblem(svg), "");
  EXPECT_NE(svg.find(">not sampled on bare metal<"), std::string::npos);
  EXPECT_EQ(Occurrences(svg, "<polyline"), 2u);
}

// A 10 ms sampler over 1000 s: 100000 points become a few per pixel column, and a one-sample
// spike survives.
TEST(SvgChartTest, LongSeriesAreThinnedPerPixelColumnKeepingTheExtremes) {
  Series s = Ramp("inflight", 100000, 0);
  s.y[54321] = 64;
  const LineChart chart{"timelines",
                        "t",
                        {"time", "s", false, {}, {}},
                        {{"In flight", "", {"depth", "requests", false, {}, {}}, {s}}}};
  const std::string svg = RenderLineChart(chart);
  EXPECT_LE(PointsOfFirstPolyline(svg), size_t(4 * kChartWidth));
  EXPECT_GE(PointsOfFirstPolyline(svg), size_t(kChartWidth / 2));
  EXPECT_NE(svg.find(">80<"), std::string::npos);  // the y axis reaches over the spike
  // The plot spans y 50..190 for 0..80: the spike at 64 is drawn at 190 - 64/80 * 140.
  EXPECT_NE(svg.find(",78.0"), std::string::npos);
}

TEST(SvgChartTest, ALogAxisCdfHasDecadesAndFixedPercentEnds) {
  Series cdf{"bare-metal r", {1, 2, 10, 100, 1000}, {0, 10, 50, 99, 100}};
  const LineChart chart{
      "latency-cdf",
      "latency of r",
      {"completion latency", "us", true, {}, {}},
      {{"", "lower is better", {"IOs completed within", "%", false, 0.0, 100.0}, {cdf}}}};
  const std::string svg = RenderLineChart(chart);
  EXPECT_EQ(MarkupProblem(svg), "");
  for (const char* tick : {">1<", ">10<", ">100<", ">1000<", ">0<", ">100<"})
    EXPECT_NE(svg.find(tick), std::string::npos) << tick;
  EXPECT_NE(svg.find(">completion latency (us)<"), std::string::npos);
  EXPECT_NE(svg.find(">IOs completed within (%)<"), std::string::npos);
  EXPECT_NE(svg.find(">lower is better<"), std::string::npos);
}

TEST(SvgChartTest, NamesFromTheUserAreEscapedEverywhere) {
  LineChart chart = TwoPanels();
  chart.title = "job <script>alert(1)</script>";
  chart.panels[1].series[0].name = "a\"b&c<d>";
  const std::string svg = RenderLineChart(chart);
  EXPECT_EQ(MarkupProblem(svg), "");
  EXPECT_EQ(svg.find("<script"), std::string::npos);
  EXPECT_NE(svg.find("a&quot;b&amp;c&lt;d&gt;"), std::string::npos);
}

BarChart LadderBars() {
  return {"ladder",
          "001-virtio-blk-r vs 003-bare-metal-r",
          "depth: no better direction",
          {"average queue depth", "requests", false, {}, {}},
          {"guest 001", "bare metal 003"},
          {{"L0 app", {{31.8, ""}, {32.0, ""}}},
           {"L2 virtqueue", {{std::nullopt, "n/a: needs QEMU >= 7.2"}, {std::nullopt, ""}}},
           {"L3 host device", {{0.04, ""}, {28.5, ""}}}}};
}

TEST(SvgChartTest, BarsStartAtZeroWithTheirValuesAndSayWhyOneIsMissing) {
  const std::string svg = RenderBarChart(LadderBars());
  EXPECT_EQ(MarkupProblem(svg), "");
  EXPECT_EQ(Occurrences(svg, "<svg"), 1u);
  // Four bars plus the two legend swatches.
  EXPECT_EQ(Occurrences(svg, "<rect"), 6u);
  for (const char* text :
       {">L0 app<", ">L2 virtqueue<", ">31.8<", ">0.04<", ">28.5<", ">n/a: needs QEMU &gt;= 7.2<",
        ">n/a<", ">guest 001<", ">average queue depth (requests)<", ">depth: no better direction<",
        ">0<", ">40<"})
    EXPECT_NE(svg.find(text), std::string::npos) << text << "\n" << svg;
  // Layers top down in the order given.
  EXPECT_LT(svg.find(">L0 app<"), svg.find(">L3 host device<"));
}

WhiskerChart Ratios() {
  return {
      "compare",
      "virtio-blk r",
      "ratio CAND/BASE; shaded: +-2% noise",
      {"ratio CAND / BASE", "", false, {}, {}},
      1.0,
      0.98,
      1.02,
      {{"iops (higher is better)", 0.9, 0.85, 0.95, "worse", "#D55E00"},
       {"p99_us (lower is better)", 1.0, 0.99, 1.01, "no change", ""},
       {"req_kib (no direction)", std::nullopt, std::nullopt, std::nullopt, "side by side", ""}}};
}

TEST(SvgChartTest, WhiskersShowEachRatioItsIntervalTheBandAndTheVerdict) {
  const std::string svg = RenderWhiskerChart(Ratios());
  EXPECT_EQ(MarkupProblem(svg), "");
  EXPECT_EQ(Occurrences(svg, "<circle"), 2u);
  EXPECT_EQ(Occurrences(svg, "<rect"), 1u);             // the noise band
  EXPECT_EQ(Occurrences(svg, "stroke-dasharray"), 1u);  // the reference line at 1.0
  EXPECT_EQ(Occurrences(svg, "stroke=\"#D55E00\" stroke-width=\"2\""), 3u);  // interval + caps
  for (const char* text : {">iops (higher is better)<", ">worse<", ">no change<", ">no ratio<",
                           ">side by side<", ">ratio CAND / BASE<", ">1<"})
    EXPECT_NE(svg.find(text), std::string::npos) << text << "\n" << svg;
}

// The band is drawn between its two ratios: at 0.98 and 1.02 on the axis.
TEST(SvgChartTest, TheNoiseBandSpansItsRatiosOnTheAxis) {
  WhiskerChart chart = Ratios();
  chart.rows.resize(1);
  const std::string svg = RenderWhiskerChart(chart);
  const size_t rect = svg.find("<rect");
  ASSERT_NE(rect, std::string::npos);
  const auto attr = [&](const std::string& name) {
    const size_t at = svg.find(name + "=\"", rect) + name.size() + 2;
    return std::stod(svg.substr(at, svg.find('"', at) - at));
  };
  const double x = attr("x"), width = attr("width");
  // The axis runs 0.8..1.05 (padding and nice ends) over the plot: the band is a sixth of
  // it, right of the labels and left of the verdicts.
  EXPECT_GT(width, 10);
  EXPECT_GT(x, TextWidth("iops (higher is better)"));
  EXPECT_LT(x + width, kChartWidth - 150);
}

// Found in the first real report: a 38-character metric label was cut off at a fixed
// 230 px column, and wide intervals put the ratio axis below 0.
TEST(SvgChartTest, LongLabelsFitAndTheRatioAxisStopsAtZero) {
  WhiskerChart chart = Ratios();
  chart.rows[0] = {"depth L3 host device (no better direction)", 1.0, 0.2, 5.0, "side by side", ""};
  const std::string svg = RenderWhiskerChart(chart);
  const size_t label = svg.find(">depth L3 host device (no better direction)<");
  ASSERT_NE(label, std::string::npos);
  const size_t x_at = svg.rfind("x=\"", label) + 3;
  const double x = std::stod(svg.substr(x_at, svg.find('"', x_at) - x_at));  // anchor end
  EXPECT_GE(x, TextWidth("depth L3 host device (no better direction)"));
  EXPECT_EQ(svg.find(">-"), std::string::npos) << "a negative tick";
  EXPECT_NE(svg.find(">0<"), std::string::npos);
}

}  // namespace
}  // namespace storbed
