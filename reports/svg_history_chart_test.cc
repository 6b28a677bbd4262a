#include "reports/svg_history_chart.h"

#include <gtest/gtest.h>

#include "reports/html_sections.h"
#include "reports/markup_check_for_test.h"

namespace storbed {
namespace {

using testing_support::MarkupProblem;
using testing_support::Occurrences;

// Ten nights of three runs each, a step of +10% at night 7 (index 6), tonight the last.
HistorySeries StepSeries() {
  HistorySeries s{"null-co rand-read", "iops", {}, {}};
  for (int i = 0; i < 10; ++i) {
    const double level = i < 6 ? 1000 : 1100;
    HistoryNight night{"s" + std::to_string(i), "2026-11-" + std::to_string(10 + i), "abc", {},
                       i == 9, i == 6};
    for (int r = 0; r < 3; ++r) night.values.push_back(level + r);
    s.nights.push_back(night);
  }
  s.changes.push_back({6, 1001, 1101, 1.1, 1e-5});
  return s;
}

TEST(HistoryChart, DrawsEveryRunTheMediansTonightAndTheChange) {
  const std::string svg = RenderHistoryChart(StepSeries(), "IO/s", "higher is better");
  EXPECT_EQ(MarkupProblem(svg), "");
  EXPECT_NE(svg.find("data-chart=\"history\""), std::string::npos);
  EXPECT_EQ(Occurrences(svg, "<circle"), 31u);  // 30 runs and the ring around tonight
  EXPECT_EQ(Occurrences(svg, "data-tonight"), 1u);
  EXPECT_NE(svg.find("data-change-night=\"7\""), std::string::npos);
  EXPECT_NE(svg.find("x1.100"), std::string::npos);
  EXPECT_NE(svg.find("iops (IO/s)"), std::string::npos);
  EXPECT_NE(svg.find("higher is better"), std::string::npos);
  EXPECT_NE(svg.find(">night<"), std::string::npos);
  EXPECT_NE(svg.find("data-environment-night=\"7\""), std::string::npos);
}

TEST(HistoryChart, SaysSoWhenNoNightMeasuredAnything) {
  HistorySeries s{"c", "p99_us", {HistoryNight{"s", "t", "r", {}, true, false}}, {}};
  const std::string svg = RenderHistoryChart(s, "us", "lower is better");
  EXPECT_EQ(MarkupProblem(svg), "");
  EXPECT_NE(svg.find("no measured run in any night"), std::string::npos);
}

TEST(HistorySection, NamesTheChangeWithItsNightRevisionAndRatio) {
  HistoryView view{"h.db", "nightly", true, {StepSeries()}};
  HistorySeries p99 = StepSeries();
  p99.metric = "p99_us";
  p99.changes.clear();
  view.series.push_back(p99);
  const std::string html = HistorySectionHtml(view);
  EXPECT_EQ(MarkupProblem(html), "");
  EXPECT_EQ(Occurrences(html, "data-chart=\"history\""), 2u);
  EXPECT_NE(html.find("iops: change at night 7 (2026-11-16, revision abc): 1001 -&gt; 1101, "
                      "ratio 1.100, p 1e-05"),
            std::string::npos)
      << html;
  EXPECT_NE(html.find("p99_us: no change point"), std::string::npos);
  EXPECT_NE(html.find("night 7 (2026-11-16, revision abc): the environment differs from the "
                      "night before&#39;s"),
            std::string::npos);
  EXPECT_NE(html.find("From h.db: 10 nights of scenario nightly. Tonight is the ringed night."),
            std::string::npos);
}

TEST(HistorySection, SaysSoWhenNoCellHasAHistory) {
  const std::string html = HistorySectionHtml(HistoryView{"h.db", "s", false, {}});
  EXPECT_NE(html.find("No cell of this run has a measured run in the history."),
            std::string::npos);
}

}  // namespace
}  // namespace storbed
