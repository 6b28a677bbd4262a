#include "reports/html_lab.h"

#include <gtest/gtest.h>

#include "reports/markup_check_for_test.h"

namespace storbed {
namespace html_lab_test {  // named, not anonymous: a unity build joins files

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

LabView ThreeHosts() {
  LabView view;
  view.db = "postgresql:///lab";
  LabScenarioView s;
  s.scenario = "nightly";
  s.gate_rule = "--baseline last:7 of each host's class";
  LabCellView cell;
  cell.cell = "virtio-blk r";
  cell.metric = "iops";
  for (const char* host : {"lab1", "lab2", "lab<3>"}) {
    HistorySeries series;
    series.cell = cell.cell;
    series.metric = "iops";
    for (int n = 0; n < 4; ++n)
      series.nights.push_back({"s" + std::to_string(n),
                               "2026-12-0" + std::to_string(n + 1) + "T02",
                               "abc",
                               {1000.0 + n},
                               n == 3,
                               false});
    series.changes.push_back({2, 1000, 700, 0.7, 0.0095});
    cell.hosts.push_back({host, series});
    s.gates.push_back({host, "3f2a", "s3", "2026-12-04T02", 3, 6, "pass", ""});
  }
  cell.changes.push_back("suite change at night 3 (2026-12-03) on all 3 hosts");
  s.cells.push_back(cell);
  view.scenarios.push_back(s);
  return view;
}

TEST(HtmlLabTest, EveryHostHasItsChartAndItsGateRow) {
  const std::string page = LabPageHtml(ThreeHosts());
  EXPECT_EQ(testing_support::MarkupProblem(page), "");
  EXPECT_EQ(Count(page, "data-host=\""), 3u);
  EXPECT_EQ(Count(page, "data-chart=\"history\""), 3u);
  EXPECT_NE(page.find("data-host=\"lab&lt;3&gt;\""), std::string::npos);  // escaped
  EXPECT_EQ(Count(page, "data-change-night=\"3\""), 3u);
  EXPECT_NE(page.find("suite change at night 3"), std::string::npos);
  EXPECT_EQ(Count(page, "<td>pass</td>"), 3u) << page;
}

TEST(HtmlLabTest, AnEmptyHistorySaysSo) {
  LabView view;
  view.db = "h.db";
  const std::string page = LabPageHtml(view);
  EXPECT_EQ(testing_support::MarkupProblem(page), "");
  EXPECT_NE(page.find("h.db holds no session."), std::string::npos);
}

}  // namespace html_lab_test
}  // namespace storbed
