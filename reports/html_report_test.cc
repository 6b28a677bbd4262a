#include "reports/html_report.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "reports/markup_check_for_test.h"
#include "reports/report_fixture_for_test.h"

namespace storbed {
namespace {

using testing_support::MarkupProblem;
using testing_support::Occurrences;

class HtmlReportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    input_.dir = testing_support::FixtureDirName("html-report");
    input_.records = testing_support::WriteFixtureDir(input_.dir);
  }
  void TearDown() override { std::filesystem::remove_all(input_.dir); }
  static size_t Charts(const std::string& html, const std::string& kind) {
    return Occurrences(html, "data-chart=\"" + kind + "\"");
  }
  ReportInput input_;
};

TEST_F(HtmlReportTest, EverySectionIsThereAndTheMarkupIsBalanced) {
  const std::string html = RenderHtmlReport(input_);
  EXPECT_EQ(MarkupProblem(html), "");
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  for (const char* id : {"environment", "results", "ladders", "timelines", "latency"})
    EXPECT_NE(html.find("<section id=\"" + std::string(id) + "\">"), std::string::npos) << id;
  EXPECT_EQ(html.find("id=\"compare\""), std::string::npos);  // no BASE given
}

// Ladders: the guest beside its twin, the other repeat alone; a timelines chart per run
// with a file (the warm-up has none); one CDF for the one job.
TEST_F(HtmlReportTest, OneChartPerLadderPerRunTimelineAndPerJob) {
  const std::string html = RenderHtmlReport(input_);
  EXPECT_EQ(Charts(html, "ladder"), 2u);
  EXPECT_EQ(Charts(html, "timelines"), 3u);
  EXPECT_EQ(Charts(html, "latency-cdf"), 1u);
  EXPECT_EQ(Occurrences(html, "<svg"), 6u);
  EXPECT_EQ(html.find("000-virtio-blk-r-w"), std::string::npos);  // warm-ups left out
  for (const char* text : {"higher is better", "lower is better", "no better direction",
                           "average queue depth (requests)", "time since the IO phase began (s)",
                           "completion latency (us)", "n/a: needs QEMU &gt;= 7.2"})
    EXPECT_NE(html.find(text), std::string::npos) << text;
}

TEST_F(HtmlReportTest, TheEnvironmentComesFromTheManifest) {
  const std::string html = RenderHtmlReport(input_);
  for (const char* text : {"scenarios/&lt;quick&gt;.json", "6.1.0 &lt;evil&gt;", "Test CPU",
                           "6.1.0-guest", "QEMU 7.2.0", "bare metal /dev/loop3"})
    EXPECT_NE(html.find(text), std::string::npos) << text;
  std::filesystem::remove(input_.dir + "/manifest.json");
  EXPECT_NE(RenderHtmlReport(input_).find("No manifest.json in"), std::string::npos);
}

// A job named like a script stays text: the page has no element the user named.
TEST_F(HtmlReportTest, NamesFromTheScenarioCannotBecomeMarkup) {
  const std::string html = RenderHtmlReport(input_);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_NE(html.find("r&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
}

// Nothing is fetched: the only URL is the SVG namespace, which browsers never load.
TEST_F(HtmlReportTest, ThePageNeedsNothingBesideItself) {
  const std::string html = RenderHtmlReport(input_);
  EXPECT_EQ(Occurrences(html, "http"), Occurrences(html, "xmlns=\"http://www.w3.org/2000/svg\""));
  for (const char* fetch : {"src=", "@import", "url(", "<script", "<link rel=\"stylesheet\""})
    EXPECT_EQ(html.find(fetch), std::string::npos) << fetch;
}

// Medians of per-run percentiles would put the p50 at 50 us, where no IO was; the merged
// histogram of both repeats has it at 1 us.
TEST_F(HtmlReportTest, RepeatsAreMergedBeforeTheirPercentilesAreTaken) {
  const std::string html = RenderHtmlReport(input_);
  // cell, runs 2, IOs 8, p50 1.0 us, p90 100.5 us
  EXPECT_NE(html.find("<td>bare-metal r&lt;script&gt;alert(1)&lt;/script&gt;</td>"
                      "<td class=\"num\">2</td><td class=\"num\">8</td>"
                      "<td class=\"num\">1.0</td><td class=\"num\">100.5</td>"),
            std::string::npos)
      << html;
  EXPECT_NE(html.find("merged histogram"), std::string::npos);
}

TEST_F(HtmlReportTest, ResultsWithoutHistogramsDrawTheirPercentiles) {
  for (RunRecord& r : input_.records)
    if (r.result) r.result->latency_histogram = {};
  const std::string html = RenderHtmlReport(input_);
  EXPECT_EQ(MarkupProblem(html), "");
  EXPECT_NE(html.find("001-virtio-blk-r (percentiles only)"), std::string::npos);
  EXPECT_NE(html.find("median of the runs&#39; percentiles (no histograms)"), std::string::npos);
}

TEST_F(HtmlReportTest, AMissingTimelinesFileIsASentence) {
  std::filesystem::remove(input_.dir + "/timelines/001-virtio-blk-r.json");
  const std::string html = RenderHtmlReport(input_);
  EXPECT_EQ(Charts(html, "timelines"), 2u);
  EXPECT_NE(html.find("001-virtio-blk-r: timelines file"), std::string::npos);
}

// Against itself every ratio is 1.0: a whisker chart per cell, never a verdict.
TEST_F(HtmlReportTest, WithABaseEachCellGetsItsRatiosWithWhiskers) {
  input_.compare_base = input_.dir;
  const std::string html = RenderHtmlReport(input_);
  EXPECT_EQ(MarkupProblem(html), "");
  EXPECT_NE(html.find("<section id=\"compare\">"), std::string::npos);
  EXPECT_EQ(Charts(html, "compare"), 2u);
  EXPECT_NE(html.find("ratio (CAND / BASE)"), std::string::npos);
  EXPECT_NE(html.find("primary tests"), std::string::npos);  // the family is on the page
  EXPECT_NE(html.find("iops (higher is better)"), std::string::npos);
  EXPECT_NE(html.find("p99_us (lower is better)"), std::string::npos);
  EXPECT_NE(html.find("Comparable: 0 environment item(s) differ"), std::string::npos);
  EXPECT_EQ(html.find(">worse</text>"), std::string::npos);
}

TEST_F(HtmlReportTest, AnUnreadableBaseIsBadInputNamingIt) {
  input_.compare_base = input_.dir + "/no-such-dir";
  try {
    RenderHtmlReport(input_);
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()), "BASE " + input_.compare_base + ": not a directory");
  }
}

// A traced run gets its CDF of every segment and its waterfall chart; a run without a trace
// adds nothing, and a report without any says so in a sentence.
TEST_F(HtmlReportTest, ATracedRunGetsItsSegmentCdfAndWaterfalls) {
  EXPECT_NE(RenderHtmlReport(input_).find("No run was traced"), std::string::npos);
  ASSERT_FALSE(input_.records.empty());
  RunRecord& traced = input_.records.front();
  traced.status = RunStatus::Ok;
  IoTraceFigures f;
  f.path = "guest (virtio-blk)";
  f.ios = f.joined = 100;
  f.joined_share = 1;
  f.clock_method = "causal bounds";
  f.not_traced = {{"host device", "null-co has no device"}};
  for (const char* name : {"submit", "to QEMU"}) {
    SegmentFigures s{name, "a", "b", "guest", 1, 2, 3, 4, 1.5, {}};
    for (int q = 0; q <= 100; ++q) s.percentiles_us.push_back(q / 10.0);
    f.segments.push_back(s);
  }
  f.waterfalls = {{"median IO", 3, {{"submit", 0, 1}, {"to QEMU", 1, 2}}}};
  traced.io_trace = f;
  const std::string html = RenderHtmlReport(input_);
  EXPECT_EQ(MarkupProblem(html), "");
  EXPECT_NE(html.find("<section id=\"traces\">"), std::string::npos);
  EXPECT_EQ(Charts(html, "io-trace-cdf"), 1u);
  EXPECT_EQ(Charts(html, "io-trace-waterfall"), 1u);
  EXPECT_NE(html.find("null-co has no device"), std::string::npos);
  EXPECT_EQ(html.find("No run was traced"), std::string::npos);
}

TEST(HtmlReportEmptyTest, NoRecordsIsAPageSayingSo) {
  const std::string html = RenderHtmlReport(ReportInput{});
  EXPECT_EQ(MarkupProblem(html), "");
  EXPECT_NE(html.find("No runs to show."), std::string::npos);
  EXPECT_EQ(Occurrences(html, "<svg"), 0u);
}

}  // namespace
}  // namespace storbed
