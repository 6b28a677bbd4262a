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

}  // namespace
}  // namespace storbed
