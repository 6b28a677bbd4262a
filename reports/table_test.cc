#include "reports/table.h"

#include <gtest/gtest.h>

namespace storbed {
namespace {

RunRecord Record(const std::string& id, const std::string& target, const std::string& host) {
  RunRecord r;
  r.run_id = id;
  r.target = target;
  r.accel = "tcg";
  r.host_name = host;
  r.job.name = "seq";
  JobResult res;
  res.mib_s = 12.5;
  res.iops = 200;
  r.result = res;
  return r;
}

std::string HeaderOf(const std::string& table) { return table.substr(0, table.find('\n')); }

TEST(ReportTableTest, OneHostLeavesTheHostColumnOut) {
  const std::string table =
      RenderTable({Record("001-virtio-blk-seq", "virtio-blk", "local"),
                   Record("002-nvme-seq", "nvme", "local")});
  EXPECT_EQ(HeaderOf(table).find("host"), std::string::npos) << table;
  EXPECT_EQ(HeaderOf(table).rfind("run", 0), 0u);
}

TEST(ReportTableTest, SeveralHostsGetAHostColumnAfterTheTarget) {
  const std::string table =
      RenderTable({Record("002-nvme-seq", "nvme", "lab2"),
                   Record("001-virtio-blk-seq", "virtio-blk", "lab1")});
  const std::string header = HeaderOf(table);
  const size_t target = header.find("target"), host = header.find("host"),
               pattern = header.find("pattern");
  ASSERT_NE(host, std::string::npos) << table;
  EXPECT_LT(target, host);
  EXPECT_LT(host, pattern);
  // Rows in run order whatever order the hosts finished in, each naming its host.
  const size_t first = table.find("001-virtio-blk-seq"), second = table.find("002-nvme-seq");
  EXPECT_LT(first, second) << table;
  EXPECT_NE(table.find("lab1", first), std::string::npos);
  EXPECT_NE(table.find("lab2", second), std::string::npos);
  // Figures stay right-aligned under their header: "MiB/s" ends where "12.50" ends.
  const size_t header_end = header.find("MiB/s") + 5;
  const std::string row = table.substr(first, table.find('\n', first) - first);
  EXPECT_EQ(row.substr(header_end - 5, 5), "12.50") << table;
}

// Three repeats of one cell: one row with n, the median and its interval.
TEST(ReportTableTest, RepeatsAreOneRowPerCellUnlessPerRepeat) {
  std::vector<RunRecord> runs;
  const double iops[] = {100, 300, 200};
  for (int i = 0; i < 3; ++i) {
    RunRecord r = Record("00" + std::to_string(i + 1) + "-nvme-seq-r" + std::to_string(i + 1),
                         "nvme", "local");
    r.params = {{"repeat", i + 1}, {"warmup", false}};
    r.result->iops = iops[i];
    runs.push_back(r);
  }
  RunRecord failed = Record("004-nvme-seq-r4", "nvme", "local");
  failed.params = {{"repeat", 4}, {"warmup", false}};
  failed.status = RunStatus::Failed;
  failed.result.reset();
  runs.push_back(failed);
  const std::string table = RenderTable(runs);
  EXPECT_EQ(HeaderOf(table).rfind("cell", 0), 0u) << table;
  const std::string row = table.substr(table.find('\n') + 1);
  EXPECT_EQ(row.rfind("nvme seq", 0), 0u) << table;
  EXPECT_NE(row.find(" 3 "), std::string::npos) << table;  // n
  EXPECT_NE(row.find(" 1 "), std::string::npos) << table;  // failed
  EXPECT_NE(row.find(" 200 "), std::string::npos) << table;  // the median IOPS
  // Regression: 3 runs printed a bootstrap "95%" interval that covered 89%; no interval of
  // a median reaches 95% from fewer than 6 runs, so none is printed.
  EXPECT_EQ(row.find(" .. "), std::string::npos) << table;
  EXPECT_EQ(table.substr(0, table.find("notes:")).find("001-nvme-seq-r1"), std::string::npos)
      << table;  // runs are named in the notes only

  std::vector<RunRecord> six = runs;
  six.pop_back();  // the failed one
  for (int i = 4; i <= 6; ++i) {
    RunRecord r = runs[0];
    r.run_id = "00" + std::to_string(i) + "-nvme-seq-r" + std::to_string(i);
    r.params["repeat"] = i;
    r.result->iops = 100.0 * i;
    six.push_back(r);
  }
  const std::string six_table = RenderTable(six);
  // Six runs: the order statistics' interval, the lowest and the highest (96.9%).
  EXPECT_NE(six_table.find(" 100 .. 600 "), std::string::npos) << six_table;

  const std::string each = RenderTable(runs, /*per_repeat=*/true);
  EXPECT_EQ(HeaderOf(each).rfind("run", 0), 0u);
  EXPECT_NE(each.find("001-nvme-seq-r1"), std::string::npos);
  EXPECT_NE(each.find("003-nvme-seq-r3"), std::string::npos);
}

}  // namespace
}  // namespace storbed
