#include "diskstats.h"

#include <gtest/gtest.h>

namespace storbed {
namespace {

// Recorded from a 6.1 guest: 20 fields (with discard and flush counters).
const char* kBefore =
    " 252       0 vda 100 10 8000 50 20 2 160 30 0 70 80 0 0 0 0 3 1\n"
    "   7       0 loop0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n";
const char* kAfter =
    " 252       0 vda 1100 30 16192 2050 20 2 160 30 1 2070 4080 0 0 0 0 5 2\n"
    "   7       0 loop0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n";

TEST(DiskstatsTest, ParsesAllLines) {
  const auto disks = ParseDiskstats(kBefore);
  ASSERT_EQ(disks.size(), 2u);
  EXPECT_EQ(disks[0].name, "vda");
  EXPECT_EQ(disks[0].reads, 100u);
  EXPECT_EQ(disks[0].weighted_ms, 80u);
  EXPECT_EQ(disks[0].flushes, 3u);
}

TEST(DiskstatsTest, OldFourteenFieldFormatHasNoFlushes) {
  const auto disks = ParseDiskstats("   8 0 sda 1 2 3 4 5 6 7 8 9 10 11\n");
  ASSERT_EQ(disks.size(), 1u);
  EXPECT_EQ(disks[0].weighted_ms, 11u);
  EXPECT_EQ(disks[0].flushes, 0u);
}

TEST(DiskstatsTest, DeltaGivesIopsRequestSizeAndLittlesLawDepth) {
  const auto before = *FindDisk(kBefore, "/dev/vda");
  const auto after = *FindDisk(kAfter, "vda");
  const BlockStats s = DiffDiskCounters(before, after, 2.0);
  EXPECT_TRUE(s.available);
  EXPECT_EQ(s.reads, 1000u);
  EXPECT_EQ(s.read_merges, 20u);
  EXPECT_EQ(s.read_bytes, 8192u * 512);
  EXPECT_DOUBLE_EQ(s.iops, 500.0);
  EXPECT_DOUBLE_EQ(s.avg_request_bytes, 8192.0 * 512 / 1000);
  // 4000 ms of residence over a 2000 ms interval: two requests in flight on average.
  EXPECT_DOUBLE_EQ(s.avg_queue_depth, 2.0);
  EXPECT_DOUBLE_EQ(s.utilization, 1.0);
  EXPECT_EQ(s.flushes, 2u);
}

TEST(DiskstatsTest, MissingDeviceIsNullopt) { EXPECT_FALSE(FindDisk(kBefore, "nvme0n1")); }

TEST(DiskstatsTest, TruncatedLineIsAnErrorNamingTheLine) {
  try {
    ParseDiskstats(" 252 0 vda 100 10 8000\n");
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("252 0 vda 100 10 8000"), std::string::npos);
  }
}

TEST(DiskstatsTest, ZeroIntervalIsUnavailable) {
  const auto c = *FindDisk(kBefore, "vda");
  EXPECT_FALSE(DiffDiskCounters(c, c, 0).available);
}

}  // namespace
}  // namespace storbed
