#include "io_buffer.h"

#include <cstdint>
#include <cstring>

#include <gtest/gtest.h>

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
  StampSectors(b.data(), b.size(), 1 << 20);
  EXPECT_EQ(FindStampMismatch(b.data(), b.size(), 1 << 20), std::nullopt);
  // The same data read back at another offset is detected.
  EXPECT_EQ(FindStampMismatch(b.data(), b.size(), 0), std::optional<uint64_t>(0));
  // A sector's own offset is in it, so one sector moved elsewhere is detected too.
  uint64_t word;
  std::memcpy(&word, b.data() + 512 + 8, 8);
  EXPECT_NE(word, 0u);
  std::memcpy(b.data() + 1024, b.data() + 512, 512);
  EXPECT_EQ(FindStampMismatch(b.data(), b.size(), 1 << 20), std::optional<uint64_t>((1 << 20) + 1024));
}

TEST(IoBufferTest, ZerosAreNotAStamp) {
  AlignedBuffer b(512);
  EXPECT_TRUE(FindStampMismatch(b.data(), b.size(), 0).has_value());
}

TEST(IoBufferTest, PartialSectorLengths) {
  AlignedBuffer b(1000);
  StampSectors(b.data(), 1000, 4096);
  EXPECT_EQ(FindStampMismatch(b.data(), 1000, 4096), std::nullopt);
}

}  // namespace
}  // namespace storbed
