#include "cli/history_by_host.h"

#include <gtest/gtest.h>

namespace storbed {
namespace history_by_host_test {  // named, not anonymous: a unity build joins files

// Two hosts over three nights; lab2 missed the second, lab1 stepped down at the third.
LabCell TwoHosts() {
  LabCell cell;
  cell.cell = "virtio-blk r";
  cell.metric = "iops";
  cell.nights = {"2026-12-01", "2026-12-02", "2026-12-03"};
  HostSeries lab1{"lab1", "c1", {}, {0, 1, 2}};
  lab1.series.nights = {{"a1", "2026-12-01T02", "r", {100, 102, 101}, false, false},
                        {"a2", "2026-12-02T02", "r", {100}, false, false},
                        {"a3", "2026-12-03T02", "r", {70}, false, false}};
  lab1.series.changes = {{2, 100, 70, 0.7, 0.009}};
  HostSeries lab2{"a-long-host-name", "c2", {}, {0, 2}};
  lab2.series.nights = {{"b1", "2026-12-01T02", "r", {90}, false, false},
                        {"b3", "2026-12-03T02", "r", {91}, false, false}};
  cell.hosts = {lab1, lab2};
  cell.changes = ClassifyChanges({"lab1", "a-long-host-name"}, {{"lab1", 2, 0.7}});
  return cell;
}

TEST(HistoryByHostTest, JsonHasEveryHostsMediansOnTheLabsNightsAndWhoseTheChangeIs) {
  const nlohmann::json j = LabSeriesJson("nightly", "iops", {TwoHosts()});
  EXPECT_EQ(j["better"], "higher");
  const auto& cell = j["cells"][0];
  EXPECT_EQ(cell["hosts"][0]["medians"], nlohmann::json({101.0, 100.0, 70.0}));
  EXPECT_EQ(cell["hosts"][1]["medians"], nlohmann::json({90.0, nullptr, 91.0}));
  EXPECT_EQ(cell["hosts"][0]["change_points"][0]["night"], 3);
  EXPECT_EQ(cell["hosts"][0]["change_points"][0]["date"], "2026-12-03");
  ASSERT_EQ(cell["changes"].size(), 1u);
  EXPECT_EQ(cell["changes"][0]["scope"], "host");
  EXPECT_EQ(cell["changes"][0]["text"],
            "lab1's change at night 3 (2026-12-03): ratio 0.700, no other host's");
}

TEST(HistoryByHostTest, TextIsARowANightAndAColumnAHostEachAsWideAsTheLongestName) {
  const std::string text = RenderLabSeries(LabSeriesJson("nightly", "iops", {TwoHosts()}));
  EXPECT_NE(text.find("scenario nightly, metric iops (better: higher), by host"),
            std::string::npos);
  EXPECT_NE(text.find("  night  date                    lab1  a-long-host-name\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  2      2026-12-02               100                 -\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  lab1's change at night 3 (2026-12-03)"), std::string::npos);
}

}  // namespace history_by_host_test
}  // namespace storbed
