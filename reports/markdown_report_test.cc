#include "reports/markdown_report.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "reports/markup_check_for_test.h"
#include "reports/report_fixture_for_test.h"

namespace storbed {
namespace {

TEST(MarkdownReportTest, TablesAlignFiguresRightAndEscapeCells) {
  EXPECT_EQ(MarkdownTable({"cell", "IOPS"}, {{"a|b", "12"}, {"x_y*", "3"}}, 1, 1),
            "| cell | IOPS |\n"
            "| --- | ---: |\n"
            "| a\\|b | 12 |\n"
            "| x\\_y\\* | 3 |\n");
}

TEST(MarkdownReportTest, NamesCannotOpenHtmlOrFormatting) {
  EXPECT_EQ(EscapeMarkdown("<b>`x`</b> & [l](u)\nnext"),
            "&lt;b&gt;\\`x\\`&lt;/b&gt; &amp; \\[l\\](u) next");
}

class MarkdownFixtureTest : public ::testing::Test {
 protected:
  void SetUp() override {
    input_.dir = testing_support::FixtureDirName("markdown-report");
    input_.records = testing_support::WriteFixtureDir(input_.dir);
  }
  void TearDown() override { std::filesystem::remove_all(input_.dir); }
  ReportInput input_;
};

TEST_F(MarkdownFixtureTest, TheTableIsTheTextReportsRows) {
  const std::string md = RenderMarkdownReport(input_);
  EXPECT_EQ(md.rfind("## storbed results: ", 0), 0u) << md;
  EXPECT_NE(md.find("| cell | pattern |"), std::string::npos) << md;  // repeats: per cell
  EXPECT_NE(md.find("IOPS 95% CI"), std::string::npos);
  EXPECT_NE(md.find("r&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  EXPECT_EQ(md.find("<script"), std::string::npos);
  EXPECT_EQ(md.find("## Compared with"), std::string::npos);
}

TEST_F(MarkdownFixtureTest, WithABaseEveryCellHasItsVerdictTable) {
  input_.compare_base = input_.dir;
  const std::string md = RenderMarkdownReport(input_);
  EXPECT_NE(md.find("## Compared with"), std::string::npos) << md;
  EXPECT_NE(md.find("| metric | verdict | worse | better | cells |"), std::string::npos) << md;
  EXPECT_EQ(testing_support::Occurrences(md, "| metric | better | BASE | CAND | ratio |"), 2u);
  EXPECT_NE(md.find("| iops | higher is better |"), std::string::npos) << md;
  EXPECT_NE(md.find("| p99\\_us | lower is better |"), std::string::npos) << md;
}

}  // namespace
}  // namespace storbed
