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

TEST(IoBuffersTest, KeepsItsBuffersWhileCountAndSizeMatch) {
  IoBuffers pool;
  const std::span<AlignedBuffer> first = pool.Take(3, 8192);
  ASSERT_EQ(first.size(), 3u);
  uint8_t* const kept = first[2].data();
  EXPECT_EQ(first[2].size(), 8192u);
  EXPECT_EQ(pool.Take(3, 8192)[2].data(), kept);
  // Another size or count: new buffers of it.
  const std::span<AlignedBuffer> bigger = pool.Take(3, 16384);
  EXPECT_EQ(bigger[0].size(), 16384u);
  EXPECT_EQ(pool.Take(5, 16384).size(), 5u);
  EXPECT_TRUE(pool.Take(0, 4096).empty());
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

// The stamp's bytes are a format: data written by one agent build is verified by another.
// Word i >= 3 of the sector at offset o with seed s is o ^ (i * K1) ^ (s * K2 + i).
TEST(IoBufferTest, StampWordsKeepTheirFormat) {
  AlignedBuffer b(2048);
  const uint64_t offset = 3 << 20, seed = 11;
  StampSectors(b.data(), b.size(), offset, seed);
  for (size_t sector = 0; sector < 4; ++sector) {
    const uint64_t o = offset + sector * kStampSector;
    uint64_t w[kStampSector / 8];
    std::memcpy(w, b.data() + sector * kStampSector, sizeof w);
    EXPECT_EQ(w[0], 0x6465627230747373ull);
    EXPECT_EQ(w[1], o);
    EXPECT_EQ(w[2], seed);
    for (size_t i = 3; i < kStampSector / 8; ++i)
      ASSERT_EQ(w[i], o ^ (i * 0x9e3779b97f4a7c15ull) ^ (seed * 0xbf58476d1ce4e5b9ull + i))
          << "sector " << sector << " word " << i;
  }
}

// Any changed byte of a full sector, header or body, is a mismatch at that sector.
TEST(IoBufferTest, EveryByteOfASectorIsChecked) {
  AlignedBuffer b(1024);
  StampSectors(b.data(), b.size(), 8192, 5);
  for (size_t byte = 512; byte < 1024; byte += 37) {
    b.data()[byte] ^= 0x40;
    const auto m = FindStampMismatch(b.data(), b.size(), 8192, 5);
    ASSERT_TRUE(m.has_value()) << "byte " << byte;
    EXPECT_EQ(m->sector, 8192u + 512) << "byte " << byte;
    b.data()[byte] ^= 0x40;
  }
  EXPECT_EQ(FindStampMismatch(b.data(), b.size(), 8192, 5), std::nullopt);
}

// A short tail keeps the stamp's first bytes: a 4-byte tail holds half the magic.
TEST(IoBufferTest, ShortTailHoldsTheStampPrefix) {
  AlignedBuffer b(516);
  StampSectors(b.data(), 516, 0, 2);
  const uint64_t magic = 0x6465627230747373ull;
  EXPECT_EQ(std::memcmp(b.data() + 512, &magic, 4), 0);
  b.data()[513] ^= 1;
  const auto m = FindStampMismatch(b.data(), 516, 0, 2);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->sector, 512u);
  EXPECT_FALSE(m->has_magic);
}

}  // namespace
}  // namespace storbed
