#include "buffer_pieces.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <string>
#include <vector>

#include "io_buffer.h"
#include "temp_file_for_test.h"
#include "unique_fd.h"

namespace storbed {
namespace {

constexpr uint64_t kPage = 4096;
constexpr uint64_t kPresent = uint64_t(1) << 63;

std::vector<uint64_t> Ascending(uint64_t first, size_t n) {
  std::vector<uint64_t> frames(n);
  std::iota(frames.begin(), frames.end(), first);
  return frames;
}

TEST(BufferPiecesTest, AdjacentFramesAreOnePiece) {
  EXPECT_EQ(CountPieces(Ascending(1000, 256), kPage, UINT32_MAX), 1u);
  EXPECT_EQ(CountPieces({}, kPage, UINT32_MAX), 0u);
  EXPECT_EQ(CountPieces(std::vector<uint64_t>{7}, kPage, UINT32_MAX), 1u);
}

TEST(BufferPiecesTest, DescendingFramesAreAPieceEach) {
  // Pages handed out in descending order (a list refilled by frees) never merge.
  std::vector<uint64_t> frames = Ascending(1000, 256);
  std::reverse(frames.begin(), frames.end());
  EXPECT_EQ(CountPieces(frames, kPage, UINT32_MAX), 256u);
}

TEST(BufferPiecesTest, PairsAndGaps) {
  // Two-page runs: 128 pieces for 1 MiB, as a fresh buffer here often is.
  std::vector<uint64_t> frames;
  for (uint64_t i = 0; i < 128; ++i) frames.insert(frames.end(), {10 * i, 10 * i + 1});
  EXPECT_EQ(CountPieces(frames, kPage, UINT32_MAX), 128u);
}

TEST(BufferPiecesTest, APieceEndsAtTheMaxSegmentSize) {
  // A loop device's 64 KiB segments: 1 MiB of adjacent pages is 16 of them.
  EXPECT_EQ(CountPieces(Ascending(0, 256), kPage, 65536), 16u);
  EXPECT_EQ(CountPieces(Ascending(0, 17), kPage, 65536), 2u);
}

// A fake pagemap: the entry of virtual page v at byte 8 v, as the kernel lays it out.
class FakePagemap {
 public:
  FakePagemap() : path_(dir_.path() + "/pagemap") { std::ofstream(path_).close(); }
  // The pages of the buffer at `addr` get these frames (0: present but hidden).
  void Map(uintptr_t addr, const std::vector<uint64_t>& frames, bool present = true) const {
    const UniqueFd fd(open(path_.c_str(), O_WRONLY));
    for (size_t i = 0; i < frames.size(); ++i) {
      const uint64_t entry = (present ? kPresent : 0) | frames[i];
      ASSERT_EQ(pwrite(fd.get(), &entry, 8, off_t((addr / kPage + i) * 8)), 8);
    }
  }
  const std::string& path() const { return path_; }

 private:
  TempDir dir_;
  std::string path_;
};

// Addresses only: nothing is read or written through them.
uint8_t* At(uintptr_t addr) { return reinterpret_cast<uint8_t*>(addr); }

TEST(BufferPiecesTest, CountsTheBuffersOverMaxSegments) {
  FakePagemap pagemap;
  std::vector<uint64_t> reversed = Ascending(5000, 16);
  std::reverse(reversed.begin(), reversed.end());
  pagemap.Map(0x100000, Ascending(100, 16));  // one piece
  pagemap.Map(0x110000, reversed);            // sixteen
  pagemap.Map(0x120000, Ascending(900, 16));  // one
  const std::vector<uint8_t*> buffers = {At(0x100000), At(0x110000), At(0x120000)};
  const auto pieces = MeasureBufferPieces(buffers, 65536, 8, UINT32_MAX, pagemap.path());
  ASSERT_TRUE(pieces);
  EXPECT_EQ(pieces->buffers, 3u);
  EXPECT_EQ(pieces->median_pieces, 1.0);
  EXPECT_EQ(pieces->max_pieces, 16u);
  EXPECT_EQ(pieces->over_max_segments, 1u);
  EXPECT_EQ(pieces->max_segments, 8u);
  const std::string warning = DescribeSplitBuffers(*pieces, "vda");
  EXPECT_NE(warning.find("1 of 3 lie in more physically contiguous pieces than vda's "
                         "max_segments (8; median 1, most 16)"),
            std::string::npos)
      << warning;
  EXPECT_NE(warning.find("huge_buffers: true"), std::string::npos);
  EXPECT_EQ(DescribeSplitBuffers({.buffers = 3,
                                  .median_pieces = 1,
                                  .max_pieces = 1,
                                  .over_max_segments = 0,
                                  .max_segments = 8},
                                 "vda"),
            "");
}

TEST(BufferPiecesTest, HiddenOrAbsentFramesAreNotMeasured) {
  FakePagemap pagemap;
  pagemap.Map(0x100000, std::vector<uint64_t>(4, 0));          // not root: frames read 0
  pagemap.Map(0x200000, Ascending(10, 4), /*present=*/false);  // not faulted in
  const auto measure = [&](uintptr_t addr, const std::string& path) {
    const std::vector<uint8_t*> buffers = {At(addr)};
    return MeasureBufferPieces(buffers, 16384, 8, UINT32_MAX, path);
  };
  EXPECT_FALSE(measure(0x100000, pagemap.path()));
  EXPECT_FALSE(measure(0x200000, pagemap.path()));
  EXPECT_FALSE(measure(0x100000, "/nonexistent"));
  EXPECT_FALSE(measure(0x900000, pagemap.path()));  // past the file's end: a short read
  pagemap.Map(0x300000, Ascending(10, 4));
  EXPECT_TRUE(measure(0x300000, pagemap.path()));
}

TEST(BufferPiecesTest, TakesTheLimitsFromTheDisksQueueForAPartition) {
  TempDir sys;
  std::filesystem::create_directories(sys.path() + "/block/vda/queue");
  std::filesystem::create_directories(sys.path() + "/block/vda/vda1");
  std::ofstream(sys.path() + "/block/vda/queue/max_segments") << "2\n";
  std::ofstream(sys.path() + "/block/vda/queue/max_segment_size") << "8192\n";
  FakePagemap pagemap;
  pagemap.Map(0x100000, Ascending(100, 6));  // 16 KiB: two 8 KiB segments; 24 KiB: three
  pagemap.Map(0x110000, {200, 201, 300, 301, 302, 303});  // the same
  const std::vector<uint8_t*> buffers = {At(0x100000), At(0x110000)};
  auto pieces = MeasureBufferPiecesOn(buffers, 16384, "vda1", sys.path(), pagemap.path());
  ASSERT_TRUE(pieces);
  EXPECT_EQ(pieces->max_pieces, 2u);  // only the first 16 KiB of each buffer count
  EXPECT_EQ(pieces->over_max_segments, 0u);
  EXPECT_EQ(pieces->max_segments, 2u);
  pieces = MeasureBufferPiecesOn(buffers, 24576, "vda1", sys.path(), pagemap.path());
  ASSERT_TRUE(pieces);
  EXPECT_EQ(pieces->max_pieces, 3u);
  EXPECT_EQ(pieces->over_max_segments, 2u);
  EXPECT_FALSE(MeasureBufferPiecesOn(buffers, 16384, "sdz", sys.path(), pagemap.path()));
}

// The real pagemap: a populated buffer's pages are present with frames when this runs as
// root, and hidden (not measured) otherwise.
TEST(BufferPiecesTest, ReadsThisProcesssOwnBuffers) {
  IoBuffers pool;
  const std::span<uint8_t* const> bufs = pool.Take(4, 1 << 20);
  const auto pieces = MeasureBufferPieces(bufs, 1 << 20, 254, UINT32_MAX);
  if (geteuid() != 0) {
    EXPECT_FALSE(pieces) << "frame numbers are hidden from an unprivileged process";
    return;
  }
  ASSERT_TRUE(pieces);
  EXPECT_EQ(pieces->buffers, 4u);
  EXPECT_GE(pieces->median_pieces, 1.0);
  EXPECT_LE(pieces->max_pieces, 256u);
}

}  // namespace
}  // namespace storbed
