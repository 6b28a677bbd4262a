#include "reports/svg_axes.h"

#include <gtest/gtest.h>

#include <cmath>

#include "reports/markup_check_for_test.h"

namespace storbed {
namespace {

using testing_support::MarkupProblem;

std::vector<std::string> Labels(const Ticks& t) {
  std::vector<std::string> out;
  for (double v : t.values) out.push_back(TickLabel(v));
  return out;
}

TEST(SvgAxesTest, LinearTicksAreNiceStepsCoveringTheData) {
  EXPECT_EQ(Labels(LinearTicks(0, 37)), (std::vector<std::string>{"0", "10", "20", "30", "40"}));
  const Ticks small = LinearTicks(0, 0.9);
  EXPECT_EQ(Labels(small), (std::vector<std::string>{"0", "0.2", "0.4", "0.6", "0.8", "1"}));
  EXPECT_DOUBLE_EQ(small.lo, 0);
  EXPECT_DOUBLE_EQ(small.hi, 1);
  EXPECT_EQ(Labels(LinearTicks(0, 1e6)),
            (std::vector<std::string>{"0", "200k", "400k", "600k", "800k", "1M"}));
  EXPECT_EQ(Labels(LinearTicks(0.9, 1.1)).front(), "0.9");
}

TEST(SvgAxesTest, AnEmptyOrBrokenRangeStillGetsAnAxis) {
  const Ticks one = LinearTicks(4, 4);
  EXPECT_LT(one.lo, 4);
  EXPECT_GT(one.hi, 4);
  const Ticks zero = LinearTicks(0, 0);
  EXPECT_DOUBLE_EQ(zero.lo, 0);
  EXPECT_GT(zero.hi, 0);
  const Ticks nan = LinearTicks(std::nan(""), 3);
  EXPECT_GE(nan.values.size(), 2u);
}

TEST(SvgAxesTest, LogTicksArePowersOfTenWithTwoAndFiveWhenFewDecades) {
  EXPECT_EQ(Labels(LogTicks(3, 2500)), (std::vector<std::string>{"1", "10", "100", "1000", "10k"}));
  EXPECT_EQ(Labels(LogTicks(15, 80)), (std::vector<std::string>{"10", "20", "50", "100"}));
  EXPECT_DOUBLE_EQ(LogTicks(0, 5).lo, 1e-3);  // zero cannot sit on a log axis
}

TEST(SvgAxesTest, TickLabelsAreShort) {
  EXPECT_EQ(TickLabel(0), "0");
  EXPECT_EQ(TickLabel(1e-15), "0");
  EXPECT_EQ(TickLabel(0.25), "0.25");
  EXPECT_EQ(TickLabel(1500), "1500");
  EXPECT_EQ(TickLabel(12500), "12.5k");
  EXPECT_EQ(TickLabel(2e6), "2M");
  EXPECT_EQ(TickLabel(1e-4), "1e-04");
  EXPECT_EQ(TickLabel(-20), "-20");
}

TEST(SvgAxesTest, FixedEndsWinOverNiceOnes) {
  const Ticks t = TicksFor(AxisSpec{"IOs", "%", false, 0, 100}, 3, 97);
  EXPECT_DOUBLE_EQ(t.lo, 0);
  EXPECT_DOUBLE_EQ(t.hi, 100);
  EXPECT_EQ(t.values.front(), 0);
  EXPECT_EQ(t.values.back(), 100);
  EXPECT_EQ(AxisTitle(AxisSpec{"IOs at or below", "%", false, {}, {}}), "IOs at or below (%)");
  EXPECT_EQ(AxisTitle(AxisSpec{"ratio", "", false, {}, {}}), "ratio");
}

TEST(SvgAxesTest, ScalesMapLinearlyOrByDecadeAndClamp) {
  const Scale lin{LinearTicks(0, 100), 100, 300, false};
  EXPECT_DOUBLE_EQ(lin.At(0), 100);
  EXPECT_DOUBLE_EQ(lin.At(50), 200);
  EXPECT_DOUBLE_EQ(lin.At(1000), 300);                // clamped into the plot
  const Scale y{LinearTicks(0, 100), 200, 0, false};  // a y axis: up is smaller
  EXPECT_DOUBLE_EQ(y.At(100), 0);
  const Scale log{LogTicks(1, 1000), 0, 300, true};
  EXPECT_NEAR(log.At(10), 100, 1e-9);
  EXPECT_NEAR(log.At(100), 200, 1e-9);
  EXPECT_NEAR(log.At(0), 0, 1e-9);
}

TEST(SvgAxesTest, AxesHaveTickLabelsAndTheirTitles) {
  const PlotArea plot{80, 10, 480, 210};
  const Scale x{LinearTicks(0, 10), 80, 480, false};
  const Scale y{LinearTicks(0, 400), 210, 10, false};
  const std::string out =
      "<g>" + XAxis(plot, x, "time (s)") + YAxis(plot, y, "IOPS (IO/s)") + "</g>";
  EXPECT_EQ(MarkupProblem(out), "");
  for (const char* label : {">0<", ">10<", ">400<", ">time (s)<", ">IOPS (IO/s)<"})
    EXPECT_NE(out.find(label), std::string::npos) << label;
  const std::string unlabelled = XAxis(plot, x, "time (s)", /*labels=*/false);
  EXPECT_EQ(unlabelled.find(">10<"), std::string::npos);
  EXPECT_EQ(unlabelled.find("time (s)"), std::string::npos);
}

TEST(SvgAxesTest, TheFrameAndTextEscapeWhatTheUserNamed) {
  const std::string out = SvgOpen("ladder", "job \"<x>\" & y", 900, 100) + SvgText(1, 2, "a<b>") +
                          Heading(1, 2, "<t>", "'n'") + SvgClose();
  EXPECT_EQ(MarkupProblem(out), "");
  EXPECT_NE(out.find("aria-label=\"job &quot;&lt;x&gt;&quot; &amp; y\""), std::string::npos);
  EXPECT_NE(out.find("data-chart=\"ladder\""), std::string::npos);
  EXPECT_NE(out.find("a&lt;b&gt;"), std::string::npos);
  EXPECT_NE(out.find("&#39;n&#39;"), std::string::npos);
  EXPECT_EQ(out.find("<x>"), std::string::npos);
}

TEST(SvgAxesTest, ALegendWrapsLongListsIntoRows) {
  double one_row = 0, rows = 0;
  Legend(0, 0, 800, {"a", "b"}, &one_row);
  EXPECT_DOUBLE_EQ(one_row, 16);
  Legend(0, 0, 300, std::vector<std::string>(6, "virtio-blk rand-read bs=4096"), &rows);
  EXPECT_GT(rows, 16 * 4);
  double none = -1;
  EXPECT_EQ(Legend(0, 0, 300, {}, &none), "");
  EXPECT_DOUBLE_EQ(none, 0);
}

}  // namespace
}  // namespace storbed
