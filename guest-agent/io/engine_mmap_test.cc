// The mmap engine's own behaviour: window remapping, madvise, growing a file it writes.
// The shared engine suite (engine_test.cc) covers what every engine does.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>

#include "aligned_buffer_for_test.h"
#include "engine.h"
#include "io_buffer.h"
#include "temp_file_for_test.h"
#include "unique_fd.h"

namespace storbed {
namespace {

constexpr uint64_t kRegion = 8 << 20;

class MmapEngineTest : public ::testing::Test {
 protected:
  void SetUp() override { path_ = WriteDataFile(dir_.path(), "target", kRegion); }

  EngineJob Job(int fd, Direction rw, uint64_t bs, uint64_t window) {
    return EngineJob{.fd = fd,
                     .target = path_,
                     .rw = rw,
                     .bs = bs,
                     .region_offset = 0,
                     .region_size = kRegion,
                     .mmap_window = window};
  }

  TempDir dir_;
  std::string path_;
};

TEST_F(MmapEngineTest, SequentialReadMapsEachWindowOnce) {
  UniqueFd fd(open(path_.c_str(), O_RDONLY | O_CLOEXEC));
  auto offsets = MakeSequential({.offset = 0, .size = kRegion, .bs = 64 << 10});
  const EngineStats s =
      MakeEngine(Engine::Mmap)->Run(Job(fd.get(), Direction::Read, 64 << 10, 1 << 20), *offsets);
  EXPECT_EQ(s.ios, 128u);
  EXPECT_EQ(s.reads, 128u);
  EXPECT_EQ(s.mmap_calls, 8u);
  EXPECT_EQ(s.munmap_calls, 8u);
  EXPECT_EQ(s.mmap_window_bytes, 1u << 20);
  EXPECT_TRUE(s.warnings.empty()) << s.warnings.front();
}

TEST_F(MmapEngineTest, WholeRegionWindowMapsOnce) {
  UniqueFd fd(open(path_.c_str(), O_RDONLY | O_CLOEXEC));
  auto offsets = MakeRandom({.offset = 0, .size = kRegion, .bs = 4096}, 3);
  EngineJob job = Job(fd.get(), Direction::Read, 4096, 0);
  job.madvise = AccessHint::Random;
  const EngineStats s = MakeEngine(Engine::Mmap)->Run(job, *offsets);
  EXPECT_EQ(s.ios, kRegion / 4096);
  EXPECT_EQ(s.mmap_calls, 1u);
  EXPECT_EQ(s.mmap_window_bytes, kRegion);
}

TEST_F(MmapEngineTest, RandomReadsRemapWhenTheyLeaveTheWindow) {
  UniqueFd fd(open(path_.c_str(), O_RDONLY | O_CLOEXEC));
  auto offsets = MakeRandom({.offset = 0, .size = kRegion, .bs = 4096}, 3);
  const EngineStats s =
      MakeEngine(Engine::Mmap)->Run(Job(fd.get(), Direction::Read, 4096, 1 << 20), *offsets);
  // 8 windows and 2048 IOs in random order: almost every IO lands in another window.
  EXPECT_GT(s.mmap_calls, 1000u);
  EXPECT_EQ(s.munmap_calls, s.mmap_calls);
}

TEST_F(MmapEngineTest, UnalignedRegionAndWindowStillCoverEveryIo) {
  UniqueFd fd(open(path_.c_str(), O_RDONLY | O_CLOEXEC));
  // Region from byte 1536, 3000-byte IOs, a window that is not a page multiple.
  const Region region{.offset = 1536, .size = 1 << 20, .bs = 3000};
  auto offsets = MakeSequential(region);
  EngineJob job = Job(fd.get(), Direction::Read, 3000, 10000);
  job.region_offset = region.offset;
  job.region_size = region.size;
  const EngineStats s = MakeEngine(Engine::Mmap)->Run(job, *offsets);
  EXPECT_EQ(s.ios, region.blocks());
  EXPECT_EQ(s.mmap_window_bytes, 12288u) << "rounded up to whole pages";
}

TEST_F(MmapEngineTest, WritesGrowTheFileAndMsyncIsTheFsync) {
  const std::string grown = dir_.path() + "/grown";
  UniqueFd fd(open(grown.c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0600));
  ASSERT_TRUE(fd.valid());
  auto offsets = MakeSequential({.offset = 0, .size = 1 << 20, .bs = 4096});
  EngineJob job = Job(fd.get(), Direction::Write, 4096, 256 << 10);
  job.region_size = 1 << 20;
  job.fsync_every = 64;
  job.end_fsync = true;
  job.target = grown;
  const EngineStats s = MakeEngine(Engine::Mmap)->Run(job, *offsets);
  EXPECT_EQ(s.writes, 256u);
  EXPECT_EQ(s.fsyncs, 5u);
  EXPECT_EQ(s.mmap_calls, 4u);
  struct stat st;
  ASSERT_EQ(fstat(fd.get(), &st), 0);
  EXPECT_EQ(uint64_t(st.st_size), 1u << 20);
  AlignedBuffer buf(1 << 20);
  ASSERT_EQ(pread(fd.get(), buf.data(), 1 << 20, 0), 1 << 20);
  EXPECT_EQ(FindStampMismatch(buf.data(), 1 << 20, 0, 1), std::nullopt);
}

TEST_F(MmapEngineTest, DirectIsAWarning) {
  UniqueFd fd(open(path_.c_str(), O_RDONLY | O_DIRECT | O_CLOEXEC));
  auto offsets = MakeSequential({.offset = 0, .size = 64 << 10, .bs = 4096});
  const EngineStats s = MakeEngine(Engine::Mmap)->Run(Job(fd.get(), Direction::Read, 4096, 0), *offsets);
  ASSERT_EQ(s.warnings.size(), 1u);
  EXPECT_EQ(s.warnings[0], "mmap goes through the page cache: direct IO does not apply");
}

}  // namespace
}  // namespace storbed
