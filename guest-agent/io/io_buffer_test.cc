#include "io_buffer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>

#include "aligned_buffer_for_test.h"
#include "thp_setting.h"

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
  const std::span<uint8_t* const> first = pool.Take(3, 8192);
  ASSERT_EQ(first.size(), 3u);
  uint8_t* const kept = first[2];
  first[2][8191] = 1;
  EXPECT_EQ(pool.Take(3, 8192)[2], kept);
  EXPECT_EQ(kept[8191], 1) << "kept buffers keep their bytes";
  EXPECT_EQ(pool.Take(5, 8192).size(), 5u);
  EXPECT_TRUE(pool.Take(0, 4096).empty());
}

// 4 KiB or huge pages, small sets or large: aligned, zero-filled, writable end to end, and
// apart from each other (a 5000-byte buffer still starts on its own 4096 boundary).
TEST(IoBuffersTest, BuffersAreAlignedZeroedAndDisjoint) {
  IoBuffers pool;
  const std::pair<size_t, size_t> sets[] = {
      {1, 512}, {4, 5000}, {3, 1 << 20}, {64, 1 << 20}, {2, 3 << 20}};
  for (const bool huge : {false, true}) {
    for (const auto& [count, size] : sets) {
      const std::span<uint8_t* const> bufs = pool.Take(count, size, huge);
      ASSERT_EQ(bufs.size(), count);
      for (size_t i = 0; i < count; ++i) {
        EXPECT_EQ(reinterpret_cast<uintptr_t>(bufs[i]) % kIoAlignment, 0u) << i;
        EXPECT_EQ(std::count(bufs[i], bufs[i] + size, 0), ptrdiff_t(size)) << i;
        if (i > 0) {
          EXPECT_GE(bufs[i], bufs[i - 1] + size) << i;
        }
      }
      for (uint8_t* b : bufs) std::memset(b, 0xff, size);
    }
  }
}

// huge_pages: whole 2 MiB pages are mapped, and what the kernel backs with huge pages is
// read from /proc/self/smaps. Where THP is on (madvise or always), it gives some.
// Regression (issue 38): a guest out of memory for its buffers was reported as
// "std::bad_alloc". 1 PiB is past any address space, so the map fails on every machine.
TEST(IoBuffersTest, BuffersThatCannotBeMappedAreNamedWithTheirSize) {
  IoBuffers buffers;
  try {
    buffers.Take(size_t(1) << 20, size_t(1) << 30, false);
    FAIL() << "1 PiB of buffers was mapped";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("cannot map 1048576 IO buffers of 1073741824 bytes "
                                          "(1073741824.0 MiB): ",
                                          0),
              0u)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("lower bs x iodepth x numjobs"), std::string::npos);
  }
}

TEST(IoBuffersTest, HugePagesAreWholeAndReported) {
  IoBuffers pool;
  pool.Take(3, 1 << 20, false);
  EXPECT_EQ(pool.HugePages().mapped, 0u) << "4 KiB pages report nothing";
  const std::span<uint8_t* const> bufs = pool.Take(3, 1 << 20, true);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(bufs[0]) % (2 << 20), 0u);
  const IoBuffers::HugePageUse use = pool.HugePages();
  EXPECT_EQ(use.mapped, 4u << 20);
  EXPECT_LE(use.huge, use.mapped);
  EXPECT_EQ(use.huge % (2 << 20), 0u);
  const std::string setting = ReadThpSetting();
  if (!setting.empty() && setting.find("[never]") == std::string::npos) {
    EXPECT_GT(use.huge, 0u) << "transparent_hugepage: " << setting;
  }
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
// Format 2, for the sector at offset o with seed s and K(i) = (i * K1) ^ (s * K2 + i):
// words 3-7 are o ^ K(i), words 8-63 Phase(o) ^ K(i), where Phase(o) is the sector's
// index in its 64 KiB window, plus one, times K3.
constexpr uint64_t K(size_t i, uint64_t seed) {
  return (i * 0x9e3779b97f4a7c15ull) ^ (seed * 0xbf58476d1ce4e5b9ull + i);
}

TEST(IoBufferTest, StampWordsKeepTheirFormat) {
  AlignedBuffer b(2048);
  const uint64_t offset = (3 << 20) + 65536 - 1024, seed = 11;  // across a window's end
  StampSectors(b.data(), b.size(), offset, seed);
  for (size_t sector = 0; sector < 4; ++sector) {
    const uint64_t o = offset + sector * kStampSector;
    const uint64_t phase = ((o % 65536) / 512 + 1) * 0xd6e8feb86659fd93ull;
    uint64_t w[kStampSector / 8];
    std::memcpy(w, b.data() + sector * kStampSector, sizeof w);
    EXPECT_EQ(w[0], 0x6465627231747373ull);
    EXPECT_EQ(w[1], o);
    EXPECT_EQ(w[2], seed);
    for (size_t i = 3; i < kStampSector / 8; ++i)
      ASSERT_EQ(w[i], (i < 8 ? o : phase) ^ K(i, seed)) << "sector " << sector << " word " << i;
  }
}

// Whole sectors of an aligned buffer take the SSE2 path, an unaligned buffer the portable
// one: both write the same bytes, whole or header-only, across a window's end, with a tail.
TEST(IoBufferTest, AlignedAndUnalignedStampsAreTheSameBytes) {
  const size_t len = 3 * 65536 + 4096 + 100;
  AlignedBuffer aligned(len), unaligned(len + 8);
  uint8_t* odd = unaligned.data() + 8;
  StampedBody aligned_body, odd_body;
  for (const uint64_t offset : {uint64_t(0), uint64_t(65536 - 1024), uint64_t(7) << 30}) {
    StampSectors(aligned.data(), len, offset, 9);
    StampSectors(odd, len, offset, 9);
    ASSERT_EQ(std::memcmp(aligned.data(), odd, len), 0) << "offset " << offset;
    // Twice at one phase: the second write rewrites the header lines alone.
    for (int write = 0; write < 2; ++write) {
      StampWrite(aligned.data(), len, offset + (uint64_t(write) << 20), 9, aligned_body);
      StampWrite(odd, len, offset + (uint64_t(write) << 20), 9, odd_body);
      ASSERT_EQ(std::memcmp(aligned.data(), odd, len), 0) << "offset " << offset;
      EXPECT_EQ(FindStampMismatch(aligned.data(), len, offset + (uint64_t(write) << 20), 9),
                std::nullopt);
    }
  }
}

// Format 1 (agents before 2026-12-02): words 3-63 all o ^ K(i). Still verified, byte for
// byte, so data written by an older agent reads back clean.
TEST(IoBufferTest, FormatOneIsStillAccepted) {
  const uint64_t offset = 8192, seed = 5;
  uint64_t w[2][kStampSector / 8];
  for (size_t sector = 0; sector < 2; ++sector) {
    const uint64_t o = offset + sector * kStampSector;
    w[sector][0] = 0x6465627230747373ull;
    w[sector][1] = o;
    w[sector][2] = seed;
    for (size_t i = 3; i < kStampSector / 8; ++i) w[sector][i] = o ^ K(i, seed);
  }
  AlignedBuffer b(sizeof w);
  std::memcpy(b.data(), w, sizeof w);
  EXPECT_EQ(FindStampMismatch(b.data(), b.size(), offset, seed), std::nullopt);
  b.data()[512 + 300] ^= 2;
  const auto m = FindStampMismatch(b.data(), b.size(), offset, seed);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->Describe(seed),
            "sector 8704 holds offset 8704 seed 5 with damaged data (expected offset 8704 seed 5)");
}

// StampWrite writes StampSectors' bytes whatever the buffer held: the body is rewritten
// unless the last stamp was of the same seed, length and phase.
TEST(IoBufferTest, StampWriteWritesTheStampOverAnything) {
  const size_t len = 4 * 65536;
  AlignedBuffer b(len), want(len);
  StampedBody body;
  std::memset(b.data(), 0x5a, len);
  struct Write {
    uint64_t offset, seed;
    size_t len;
  };
  // Same phase; another phase; another seed; a shorter length; back to the first.
  for (const Write& w : {Write{0, 1, len}, Write{1 << 20, 1, len}, Write{4096, 1, len},
                         Write{4096, 2, len}, Write{4096, 2, 8192}, Write{0, 1, len}}) {
    StampWrite(b.data(), w.len, w.offset, w.seed, body);
    StampSectors(want.data(), w.len, w.offset, w.seed);
    ASSERT_EQ(std::memcmp(b.data(), want.data(), w.len), 0)
        << "offset " << w.offset << " seed " << w.seed << " len " << w.len;
  }
  // After a read (Forget), the body is written again.
  std::memset(b.data(), 0x5a, len);
  body.Forget();
  StampWrite(b.data(), len, 1 << 20, 1, body);
  StampSectors(want.data(), len, 1 << 20, 1);
  EXPECT_EQ(std::memcmp(b.data(), want.data(), len), 0);
}

// The saving itself: with the body in place only the header lines are written, so a
// change behind them survives (hence Forget() after anything else lands in the buffer).
TEST(IoBufferTest, StampWriteKeepsTheBodyInPlace) {
  AlignedBuffer b(65536);
  StampedBody body;
  StampWrite(b.data(), b.size(), 0, 3, body);
  b.data()[512 + kStampHeader] ^= 1;  // the first body byte of sector 1
  b.data()[512] ^= 1;                 // and its magic
  StampWrite(b.data(), b.size(), 65536, 3, body);
  const auto m = FindStampMismatch(b.data(), b.size(), 65536, 3);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->Describe(3),
            "sector 66048 holds offset 66048 seed 3 with damaged data "
            "(expected offset 66048 seed 3)");
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
  const uint64_t magic = 0x6465627231747373ull;
  EXPECT_EQ(std::memcmp(b.data() + 512, &magic, 4), 0);
  b.data()[513] ^= 1;
  const auto m = FindStampMismatch(b.data(), 516, 0, 2);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->sector, 512u);
  EXPECT_FALSE(m->has_magic);
}

}  // namespace
}  // namespace storbed
