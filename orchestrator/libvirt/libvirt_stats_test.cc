#include "libvirt/libvirt_stats.h"

#include <gtest/gtest.h>

#include <cstring>

namespace storbed {
namespace {

// Recorded from virsh domstats --block of a TCG guest with one virtio-blk disk.
const StatFields kTwoDisks = {
    {"block.count", "2"},
    {"block.0.name", "vda"},       {"block.0.path", "/var/tmp/b.raw"},
    {"block.0.backingIndex", "1"}, {"block.0.rd.reqs", "1024"},
    {"block.0.rd.bytes", "4194304"}, {"block.0.rd.times", "912345678"},
    {"block.0.wr.reqs", "16"},     {"block.0.wr.bytes", "65536"},
    {"block.0.wr.times", "1234567"}, {"block.0.fl.reqs", "3"},
    {"block.0.fl.times", "45678"}, {"block.0.allocation", "33554432"},
    {"block.0.capacity", "33554432"}, {"block.0.physical", "33554432"},
    {"block.1.name", "vdb"},       {"block.1.rd.reqs", "7"},
    {"block.1.rd.bytes", "28672"}, {"block.1.rd.times", "100"},
    {"block.1.wr.reqs", "0"},      {"block.1.wr.bytes", "0"},
    {"block.1.wr.times", "0"},     {"block.1.fl.reqs", "0"},
    {"block.1.fl.times", "0"},
};

TEST(LibvirtStatsTest, CountersOfTheNamedDisk) {
  auto c = BlockCountersFromStats(kTwoDisks, "vda");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->device, "vda");
  EXPECT_EQ(c->rd_operations, 1024u);
  EXPECT_EQ(c->rd_bytes, 4194304u);
  EXPECT_EQ(c->rd_total_time_ns, 912345678u);
  EXPECT_EQ(c->wr_operations, 16u);
  EXPECT_EQ(c->wr_bytes, 65536u);
  EXPECT_EQ(c->wr_total_time_ns, 1234567u);
  EXPECT_EQ(c->flush_operations, 3u);
  EXPECT_EQ(c->flush_total_time_ns, 45678u);
  auto other = BlockCountersFromStats(kTwoDisks, "vdb");
  ASSERT_TRUE(other);
  EXPECT_EQ(other->rd_operations, 7u);
}

TEST(LibvirtStatsTest, ADiskThatIsNotThereIsNullopt) {
  EXPECT_FALSE(BlockCountersFromStats(kTwoDisks, "vdc"));
  EXPECT_FALSE(BlockCountersFromStats({}, "vda"));
  EXPECT_FALSE(BlockCountersFromStats({{"state.state", "1"}}, "vda"));
}

TEST(LibvirtStatsTest, AMissingFieldIsAnErrorNamingIt) {
  StatFields f;
  for (const auto& kv : kTwoDisks)
    if (kv.first != "block.0.rd.times") f.push_back(kv);
  try {
    BlockCountersFromStats(f, "vda");
    FAIL() << "a missing time must not pass as zero latency";
  } catch (const LibvirtStatsError& e) {
    EXPECT_NE(std::string(e.what()).find("block.0.rd.times"), std::string::npos) << e.what();
  }
}

TEST(LibvirtStatsTest, ANonNumberIsAnError) {
  StatFields f = kTwoDisks;
  for (auto& kv : f)
    if (kv.first == "block.0.wr.reqs") kv.second = "-1";
  EXPECT_THROW(BlockCountersFromStats(f, "vda"), LibvirtStatsError);
}

TEST(LibvirtStatsTest, TypedParametersFlattenToText) {
  virTypedParameter p[3] = {};
  std::strcpy(p[0].field, "block.0.name");
  p[0].type = VIR_TYPED_PARAM_STRING;
  char name[] = "vda";
  p[0].value.s = name;
  std::strcpy(p[1].field, "block.0.rd.reqs");
  p[1].type = VIR_TYPED_PARAM_ULLONG;
  p[1].value.ul = 18446744073709551615ULL;
  std::strcpy(p[2].field, "state.state");
  p[2].type = VIR_TYPED_PARAM_INT;
  p[2].value.i = -3;
  const StatFields f = FieldsOf(p, 3);
  ASSERT_EQ(f.size(), 3u);
  EXPECT_EQ(f[0], (std::pair<std::string, std::string>{"block.0.name", "vda"}));
  EXPECT_EQ(f[1].second, "18446744073709551615");
  EXPECT_EQ(f[2].second, "-3");
}

}  // namespace
}  // namespace storbed
