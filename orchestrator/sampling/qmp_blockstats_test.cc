#include "sampling/qmp_blockstats.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace storbed {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

// Shape of QEMU 7.2.22's reply for -blockdev raw-on-file + virtio-blk-pci (id dev-d0) and
// nvme (id dev-d1): device is "", virtio's qdev is the QOM path, nvme's the bare id.
json Stats(uint64_t rd_ops, uint64_t wr_ops, uint64_t rd_ns, uint64_t wr_ns, uint64_t flush_ops,
           uint64_t flush_ns, json timed = json::array()) {
  return json{{"unmap_operations", 0},
              {"unmap_merged", 0},
              {"flush_total_time_ns", flush_ns},
              {"wr_highest_offset", 0},
              {"wr_total_time_ns", wr_ns},
              {"failed_wr_operations", 0},
              {"failed_rd_operations", 0},
              {"wr_merged", 0},
              {"wr_bytes", wr_ops * 4096},
              {"timed_stats", timed},
              {"account_invalid", true},
              {"rd_total_time_ns", rd_ns},
              {"flush_operations", flush_ops},
              {"wr_operations", wr_ops},
              {"rd_merged", 1},
              {"rd_bytes", rd_ops * 4096},
              {"account_failed", true},
              {"rd_operations", rd_ops}};
}

json Reply(json d0_stats, json d1_stats = Stats(0, 0, 0, 0, 0, 0)) {
  return json::array(
      {{{"device", ""},
        {"parent", {{"stats", Stats(0, 0, 0, 0, 0, 0)}, {"node-name", "file-d0"}}},
        {"stats", d0_stats},
        {"node-name", "disk-d0"},
        {"qdev", "/machine/peripheral/dev-d0/virtio-backend"}},
       {{"device", ""}, {"stats", d1_stats}, {"node-name", "disk-d1"}, {"qdev", "dev-d1"}}});
}

TEST(QmpBlockstatsTest, ParsesQemu72ReplyKeyedByQdev) {
  auto all = ParseBlockstats(Reply(Stats(10, 20, 1000, 2000, 3, 300)));
  ASSERT_EQ(all.size(), 2u);
  const BlockCounters* d0 = FindBlockCounters(all, "dev-d0");
  ASSERT_NE(d0, nullptr);
  EXPECT_EQ(d0->node_name, "disk-d0");
  EXPECT_EQ(d0->rd_operations, 10u);
  EXPECT_EQ(d0->wr_bytes, 20u * 4096);
  EXPECT_EQ(d0->flush_total_time_ns, 300u);
  EXPECT_EQ(d0->rd_merged, 1u);
  const BlockCounters* d1 = FindBlockCounters(all, "dev-d1");
  ASSERT_NE(d1, nullptr);
  EXPECT_EQ(d1->qdev, "dev-d1");
  EXPECT_EQ(FindBlockCounters(all, "dev-d2"), nullptr);
}

TEST(QmpBlockstatsTest, QdevMatchesIdAndQomPaths) {
  EXPECT_TRUE(QdevMatches("dev-d0", "dev-d0"));
  EXPECT_TRUE(QdevMatches("/machine/peripheral/dev-d0", "dev-d0"));
  EXPECT_TRUE(QdevMatches("/machine/peripheral/dev-d0/virtio-backend", "dev-d0"));
  EXPECT_FALSE(QdevMatches("/machine/peripheral/dev-d01/virtio-backend", "dev-d0"));
  EXPECT_FALSE(QdevMatches("", ""));
}

TEST(QmpBlockstatsTest, DeltaGivesIopsSizeDepthAndLatency) {
  auto b = ParseBlockstats(Reply(Stats(100, 100, 1'000'000, 1'000'000, 1, 0)));
  // 1000 more requests in 0.5 s, 400 ms of residence for them, 2 flushes of 100 ms.
  auto a = ParseBlockstats(Reply(Stats(600, 600, 201'000'000, 201'000'000, 3, 100'000'000)));
  BlockDelta d = DiffBlockCounters(*FindBlockCounters(b, "dev-d0"), *FindBlockCounters(a, "dev-d0"),
                                   500'000'000);
  ASSERT_TRUE(d.valid) << d.reason;
  EXPECT_EQ(d.reads, 500u);
  EXPECT_EQ(d.flushes, 2u);
  EXPECT_DOUBLE_EQ(d.iops, 2000);
  EXPECT_DOUBLE_EQ(d.avg_request_bytes, 4096);
  EXPECT_DOUBLE_EQ(d.avg_depth, 1.0);          // (400 + 100) ms / 500 ms
  EXPECT_DOUBLE_EQ(d.mean_latency_us, 400.0);  // 400 ms / 1000 requests
  LayerStats l = QemuBlockLayer(d, *FindBlockCounters(a, "dev-d0"), "query-blockstats dev-d0");
  EXPECT_TRUE(l.available);
  EXPECT_EQ(l.layer, kLayerQemuBlock);
  EXPECT_EQ(l.source, "query-blockstats dev-d0");
  EXPECT_TRUE(l.has_latency);
  EXPECT_THAT(l.notes, ::testing::Contains(HasSubstr("2 flushes")));
}

TEST(QmpBlockstatsTest, IdleIntervalHasNoSizeOrLatency) {
  auto s = ParseBlockstats(Reply(Stats(5, 5, 10, 10, 0, 0)));
  BlockDelta d = DiffBlockCounters(s[0], s[0], 100'000'000);
  ASSERT_TRUE(d.valid);
  LayerStats l = QemuBlockLayer(d, s[0], "x");
  EXPECT_TRUE(l.available);
  EXPECT_DOUBLE_EQ(l.avg_depth, 0);
  EXPECT_FALSE(l.has_latency);
  EXPECT_FALSE(l.has_request_size);
}

TEST(QmpBlockstatsTest, CountersGoingBackwardsAreNotADelta) {
  auto b = ParseBlockstats(Reply(Stats(50, 0, 10, 0, 0, 0)));
  auto a = ParseBlockstats(Reply(Stats(10, 0, 20, 0, 0, 0)));
  BlockDelta d = DiffBlockCounters(b[0], a[0], 100);
  EXPECT_FALSE(d.valid);
  EXPECT_THAT(d.reason, HasSubstr("went backwards"));
  EXPECT_FALSE(QemuBlockLayer(d, a[0], "x").available);
  EXPECT_FALSE(DiffBlockCounters(b[0], b[0], 0).valid);
}

TEST(QmpBlockstatsTest, TimedStatsBecomeANote) {
  json timed = json::array({{{"interval_length", 60},
                             {"avg_rd_queue_depth", 1.5},
                             {"avg_wr_queue_depth", 0.25},
                             {"avg_rd_latency_ns", 1000},
                             {"min_rd_latency_ns", 0},
                             {"max_rd_latency_ns", 0}}});
  auto s = ParseBlockstats(Reply(Stats(1, 1, 1, 1, 0, 0, timed)));
  ASSERT_EQ(s[0].timed_stats.size(), 1u);
  EXPECT_EQ(s[0].timed_stats[0].interval_length_s, 60u);
  EXPECT_DOUBLE_EQ(s[0].timed_stats[0].avg_rd_queue_depth, 1.5);
  LayerStats l = QemuBlockLayer(DiffBlockCounters(s[0], s[0], 1), s[0], "x");
  EXPECT_THAT(l.notes, ::testing::Contains(HasSubstr("last 60 s: avg rd depth 1.50")));
}

TEST(QmpBlockstatsTest, WholeReplyLineParses) {
  std::string line = json{{"return", Reply(Stats(1, 2, 3, 4, 5, 6))}, {"id", 7}}.dump();
  EXPECT_EQ(ParseBlockstatsText(line).size(), 2u);
}

TEST(QmpBlockstatsTest, TruncatedReplyIsTypedErrorKeepingRawText) {
  std::string line = json{{"return", Reply(Stats(1, 2, 3, 4, 5, 6))}}.dump();
  std::string cut = line.substr(0, line.size() / 2);
  try {
    ParseBlockstatsText(cut);
    FAIL() << "expected BlockstatsError";
  } catch (const BlockstatsError& e) {
    EXPECT_THAT(e.what(), HasSubstr("not valid JSON"));
    EXPECT_EQ(e.raw(), cut);
  }
}

TEST(QmpBlockstatsTest, MissingOrWrongFieldsAreTypedErrors) {
  json r = Reply(Stats(1, 2, 3, 4, 5, 6));
  r[0]["stats"].erase("wr_total_time_ns");
  try {
    ParseBlockstatsText(r.dump());
    FAIL() << "expected BlockstatsError";
  } catch (const BlockstatsError& e) {
    EXPECT_THAT(e.what(), HasSubstr("stats.wr_total_time_ns is missing"));
    EXPECT_THAT(e.what(), HasSubstr("dev-d0"));
    EXPECT_EQ(e.raw(), r.dump());
  }
  json neg = Reply(Stats(1, 2, 3, 4, 5, 6));
  neg[1]["stats"]["rd_bytes"] = -1;
  EXPECT_THROW(ParseBlockstats(neg), BlockstatsError);
  json nostats = Reply(Stats(1, 2, 3, 4, 5, 6));
  nostats[0].erase("stats");
  EXPECT_THROW(ParseBlockstats(nostats), BlockstatsError);
  EXPECT_THROW(ParseBlockstats(json::object()), BlockstatsError);
  EXPECT_THROW(ParseBlockstats(json::array({1})), BlockstatsError);
}

}  // namespace
}  // namespace storbed
