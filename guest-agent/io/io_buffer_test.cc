#include "io_buffer.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>

namespace storbed {
namespace {

TEST(IoBufferTest, AlignedAndZeroed) {
  AlignedBuffer b(8192);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(b.data()) % kIoAlignment, 0u);
  for (size_t i = 0; i < b.size(); ++i) ASSERT_EQ(b.data()[i], 0);
  AlignedBuffer moved = std::move(b);
  EXPECT_EQ(moved.size(), 8192u);
  EXPECT_EQ(b.data(), nullptr);
}

TEST(IoBufferTest, StampCarriesTheOffsetOfEachSector) {
  AlignedBuffer b(4096);
  StampSectors(b.data(), b.size(), 1 << 20, 7);
  EXPECT_EQ(FindStampMismatch(b.data(), b.size(), 1 << 20, 7), std::nullopt);
  // The same data read back at another offset is detected.
  const auto moved = FindStampMismatch(b.data(), b.size(), 0, 7);
  ASSERT_TRUE(moved.has_value());
  EXPECT_EQ(moved->sector, 0u);
  EXPECT_TRUE(moved->has_magic);
  EXPECT_EQ(moved->found_offset, 1u << 20);
  EXPECT_EQ(moved->Describe(7), "sector 0 holds offset 1048576 seed 7 (expected offset 0 seed 7)");
  // A sector's own offset is in it, so one sector moved elsewhere is detected too.
  std::memcpy(b.data() + 1024, b.data() + 512, 512);
  const auto copied = FindStampMismatch(b.data(), b.size(), 1 << 20, 7);
  ASSERT_TRUE(copied.has_value());
  EXPECT_EQ(copied->sector, (1u << 20) + 1024);
  EXPECT_EQ(copied->found_offset, (1u << 20) + 512);
}

TEST(IoBufferTest, StampCarriesTheSeed) {
  AlignedBuffer b(1024);
  StampSectors(b.data(), b.size(), 4096, 3);
  const auto m = FindStampMismatch(b.data(), b.size(), 4096, 4);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->Describe(4), "sector 4096 holds offset 4096 seed 3 (expected offset 4096 seed 4)");
}

TEST(IoBufferTest, DamageBehindAGoodHeaderIsNamed) {
  AlignedBuffer b(1024);
  StampSectors(b.data(), b.size(), 0, 1);
  b.data()[512 + 100] ^= 1;
  const auto m = FindStampMismatch(b.data(), b.size(), 0, 1);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->Describe(1),
            "sector 512 holds offset 512 seed 1 with damaged data "
            "(expected offset 512 seed 1)");
}

TEST(IoBufferTest, ZerosAreNotAStamp) {
  AlignedBuffer b(512);
  const auto m = FindStampMismatch(b.data(), b.size(), 0, 0);
  ASSERT_TRUE(m.has_value());
  EXPECT_FALSE(m->has_magic);
  EXPECT_EQ(m->Describe(0),
            "sector 0 holds offset 0 seed 0 without the stamp magic (expected offset 0 seed 0)");
}

TEST(IoBufferTest, PartialSectorLengths) {
  AlignedBuffer b(1000);
  StampSectors(b.data(), 1000, 4096, 9);
  EXPECT_EQ(FindStampMismatch(b.data(), 1000, 4096, 9), std::nullopt);
  EXPECT_EQ(FindStampMismatch(b.data(), 12, 4096, 9), std::nullopt);
}

}  // namespace
}  // namespace storbed
