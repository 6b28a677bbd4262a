// `storbed report DIR --html FILE` for real: a bare-metal suite with repeats, its
// report.html written by the run, the page and the Markdown asked for by name, and the page
// opened in headless Chromium: no console errors, every chart in the DOM, a screenshot
// kept under the build directory (test-artifacts/report.png) for a look.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "chromium_for_test.h"
#include "test_env.h"

namespace storbed {
namespace html_report_test {  // named, not anonymous: a unity build joins files

namespace fs = std::filesystem;

class HtmlReportCliTest : public ::testing::Test {
 protected:
  // One bare-metal suite: 4k and 64k random reads, 3 repeats each (no guest: seconds),
  // 0.3 s each so the 100 ms samplers have a few points to draw.
  static void SetUpTestSuite() {
    dir_ = new std::string(testing::ScratchDir("html-report"));
    std::ofstream(*dir_ + "/h.json") << R"({"name": "h", "targets": ["bare-metal"],
        "repeats": 3, "disk": {"size": "16m"},
        "jobs": [{"name": "r", "pattern": "random", "ioengine": "io_uring", "iodepth": 4,
                  "bs": ["4k", "64k"], "io_size": "256m", "runtime": 0.3}]})";
    const testing::CliRun run =
        testing::RunCli({"run", *dir_ + "/h.json", "--out", *dir_ + "/out", "--work-dir", *dir_},
                        *dir_ + "/run.log");
    ASSERT_EQ(run.exit, "exited with status 0") << run.log;
  }
  static void TearDownTestSuite() { delete dir_; }

  // What the page must hold for these results: a ladder per bare-metal run (no guest to
  // pair with), a timelines chart per run with a timelines file, one CDF for the one job,
  // and with --compare a whisker chart per cell.
  static size_t ExpectedCharts(bool with_compare) {
    const auto records = nlohmann::json::parse(std::ifstream(*dir_ + "/out/results.json"));
    size_t ladders = 0, timelines = 0;
    for (const auto& r : records) {
      if (r["status"] == "warmup") continue;
      ladders += r.contains("ladder") && !r["ladder"].is_null();
      timelines += !r.value("timelines_file", std::string()).empty();
    }
    EXPECT_EQ(ladders, 6u);
    EXPECT_EQ(timelines, 6u);
    return ladders + timelines + 1 + (with_compare ? 2 : 0);
  }
  static std::string* dir_;
};
std::string* HtmlReportCliTest::dir_ = nullptr;

TEST_F(HtmlReportCliTest, EveryRunWritesReportHtmlBesideReportTxt) {
  const std::string html = testing::Slurp(*dir_ + "/out/report.html");
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u) << html.substr(0, 200);
  EXPECT_EQ(testing::Occurrences(html, "<svg"), ExpectedCharts(false));
  EXPECT_NE(html.find("data-chart=\"latency-cdf\""), std::string::npos);
  EXPECT_TRUE(fs::exists(*dir_ + "/out/report.txt"));
}

TEST_F(HtmlReportCliTest, HtmlAndMarkdownGoToTheFilesNamedWithTheVerdicts) {
  const std::string html = *dir_ + "/asked.html", md = *dir_ + "/asked.md";
  const testing::CliRun r = testing::RunCli(
      {"report", *dir_ + "/out", "--html", html, "--markdown", md, "--compare", *dir_ + "/out"},
      *dir_ + "/report.log");
  ASSERT_EQ(r.exit, "exited with status 0") << r.log;
  EXPECT_EQ(r.log.find("IOPS 95% CI"), std::string::npos) << "files only: " << r.log;
  const std::string page = testing::Slurp(html);
  EXPECT_EQ(testing::Occurrences(page, "<svg"), ExpectedCharts(true));
  EXPECT_EQ(testing::Occurrences(page, "data-chart=\"compare\""), 2u);
  const std::string markdown = testing::Slurp(md);
  EXPECT_NE(markdown.find("| cell | pattern |"), std::string::npos) << markdown;
  EXPECT_NE(markdown.find("## Compared with " + *dir_ + "/out"), std::string::npos) << markdown;

  const testing::CliRun bad = testing::RunCli(
      {"report", *dir_ + "/out", "--html", html, "--compare", *dir_ + "/nope"}, *dir_ + "/bad.log");
  EXPECT_EQ(bad.exit, "exited with status 2") << bad.log;
  EXPECT_NE(bad.log.find("storbed: BASE " + *dir_ + "/nope: not a directory"), std::string::npos)
      << bad.log;
}

TEST_F(HtmlReportCliTest, ChromiumRendersThePageWithoutConsoleErrors) {
  const std::string chromium = testing::ChromiumPath();
  if (chromium.empty())
    GTEST_SKIP() << "chromium is not installed (scripts/setup.sh installs it): the page is "
                    "not opened in a browser";
  const std::string html = *dir_ + "/browser.html";
  const testing::CliRun r =
      testing::RunCli({"report", *dir_ + "/out", "--html", html, "--compare", *dir_ + "/out"},
                      *dir_ + "/browser-report.log");
  ASSERT_EQ(r.exit, "exited with status 0") << r.log;

  const std::string screenshot = testing::TestArtifactsDir() + "/report.png";
  fs::remove(screenshot);
  auto open = [&](const std::string& action, const std::string& log) {
    return testing::OpenInChromium(chromium, html, action, *dir_, log);
  };
  const std::string dom = open("--dump-dom", *dir_ + "/chromium-dom.log");
  // Chromium logs every console message, an error in the page included, as CONSOLE(...).
  EXPECT_EQ(dom.find("CONSOLE"), std::string::npos) << dom;
  EXPECT_EQ(testing::Occurrences(dom, "<svg"), ExpectedCharts(true)) << dom.substr(0, 2000);
  EXPECT_NE(dom.find("<section id=\"compare\">"), std::string::npos);

  const std::string shot = open("--screenshot=" + screenshot, *dir_ + "/chromium-shot.log");
  EXPECT_EQ(shot.find("CONSOLE"), std::string::npos) << shot;
  ASSERT_TRUE(fs::exists(screenshot)) << shot;
  EXPECT_GT(fs::file_size(screenshot), 10000u) << "a blank page is a few KiB";
}

}  // namespace html_report_test
}  // namespace storbed
