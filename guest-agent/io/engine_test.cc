// One suite, run against every engine on a real file on disk.
#include "engine.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <string>

#include <gtest/gtest.h>

#include "io_buffer.h"
#include "temp_file_for_test.h"
#include "unique_fd.h"

namespace storbed {
namespace {

struct PsyncTraits {
  static constexpr Engine kEngine = Engine::Psync;
  static uint32_t DepthFor(uint32_t) { return 1; }
};
struct UringTraits {
  static constexpr Engine kEngine = Engine::IoUring;
  static uint32_t DepthFor(uint32_t iodepth) { return iodepth; }
};

constexpr uint64_t kFileSize = 1 << 20;

template <typename Traits>
class EngineTest : public ::testing::Test {
 protected:
  void SetUp() override { path_ = WriteDataFile(dir_.path(), "target", kFileSize); }

  UniqueFd Open(int flags) {
    UniqueFd fd(open(path_.c_str(), flags | O_CLOEXEC));
    EXPECT_TRUE(fd.valid()) << path_;
    return fd;
  }

  EngineJob Job(int fd, Direction rw, uint32_t iodepth) {
    return EngineJob{.fd = fd, .target = path_, .rw = rw, .bs = 4096, .iodepth = iodepth};
  }

  EngineStats Run(const EngineJob& job, OffsetGenerator& offsets) {
    return MakeEngine(Traits::kEngine)->Run(job, offsets);
  }

  TempDir dir_;
  std::string path_;
};

using Engines = ::testing::Types<PsyncTraits, UringTraits>;
TYPED_TEST_SUITE(EngineTest, Engines);

TYPED_TEST(EngineTest, OnePassDirectReadCountsEveryBlockOnce) {
  UniqueFd fd = this->Open(O_RDONLY | O_DIRECT);
  auto offsets = MakeRandom({.offset = 0, .size = kFileSize, .bs = 4096}, 5);
  const EngineStats s = this->Run(this->Job(fd.get(), Direction::Read, 4), *offsets);
  EXPECT_EQ(s.ios, kFileSize / 4096);
  EXPECT_EQ(s.bytes, kFileSize);
  EXPECT_EQ(s.latency.count(), s.ios);
  EXPECT_GT(s.latency.min_ns(), 0u);
  EXPECT_GT(s.runtime_s, 0);
}

TYPED_TEST(EngineTest, WritesStampEveryBlockWithItsOffset) {
  {
    UniqueFd fd = this->Open(O_RDWR | O_DIRECT);
    auto offsets = MakeSequential({.offset = 0, .size = kFileSize, .bs = 4096});
    const EngineStats s = this->Run(this->Job(fd.get(), Direction::Write, 8), *offsets);
    EXPECT_EQ(s.ios, kFileSize / 4096);
    EXPECT_EQ(s.bytes, kFileSize);
  }
  UniqueFd fd = this->Open(O_RDONLY);
  AlignedBuffer buf(kFileSize);
  ASSERT_EQ(pread(fd.get(), buf.data(), kFileSize, 0), ssize_t(kFileSize));
  EXPECT_EQ(FindStampMismatch(buf.data(), kFileSize, 0), std::nullopt);
}

TYPED_TEST(EngineTest, IodepthIsRespected) {
  UniqueFd fd = this->Open(O_RDONLY | O_DIRECT);
  auto offsets = MakeSequential({.offset = 0, .size = kFileSize, .bs = 4096});
  const EngineStats s = this->Run(this->Job(fd.get(), Direction::Read, 8), *offsets);
  EXPECT_EQ(s.max_in_flight, TypeParam::DepthFor(8));
  const bool warned = std::any_of(s.warnings.begin(), s.warnings.end(), [](const std::string& w) {
    return w == "psync is synchronous: iodepth 8 ran at 1";
  });
  EXPECT_EQ(warned, TypeParam::kEngine == Engine::Psync);
}

TYPED_TEST(EngineTest, IoLimitStopsEarlyAndWrapsPasses) {
  UniqueFd fd = this->Open(O_RDONLY | O_DIRECT);
  auto offsets = MakeSequential({.offset = 0, .size = kFileSize, .bs = 4096});
  EngineJob job = this->Job(fd.get(), Direction::Read, 4);
  job.io_limit = 10 * 4096;
  EXPECT_EQ(this->Run(job, *offsets).ios, 10u);
  job.io_limit = 2 * kFileSize;  // two passes
  const EngineStats s = this->Run(job, *offsets);
  EXPECT_EQ(s.bytes, 2 * kFileSize);
}

TYPED_TEST(EngineTest, RuntimeKeepsGoingAfterAPass) {
  UniqueFd fd = this->Open(O_RDONLY);
  auto offsets = MakeSequential({.offset = 0, .size = 16 * 4096, .bs = 4096});
  EngineJob job = this->Job(fd.get(), Direction::Read, 2);
  job.runtime_s = 0.2;
  const EngineStats s = this->Run(job, *offsets);
  EXPECT_GT(s.ios, 16u) << "a runtime job stopped after one pass";
  EXPECT_GE(s.runtime_s, 0.2);
  EXPECT_LT(s.runtime_s, 2.0);
}

TYPED_TEST(EngineTest, ReadPastTheEndIsAShortIoError) {
  UniqueFd fd = this->Open(O_RDONLY);
  // The region claims one block more than the file has.
  auto offsets = MakeSequential({.offset = kFileSize - 4096, .size = 2 * 4096, .bs = 4096});
  try {
    this->Run(this->Job(fd.get(), Direction::Read, 1), *offsets);
    FAIL() << "expected JobError";
  } catch (const JobError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(this->path_), std::string::npos) << what;
    EXPECT_NE(what.find("offset " + std::to_string(kFileSize)), std::string::npos) << what;
    EXPECT_NE(what.find("transferred 0 of 4096"), std::string::npos) << what;
  }
}

TYPED_TEST(EngineTest, FailedIoNamesSyscallAndErrno) {
  UniqueFd fd = this->Open(O_RDONLY);  // writing to it gives EBADF
  auto offsets = MakeSequential({.offset = 0, .size = kFileSize, .bs = 4096});
  try {
    this->Run(this->Job(fd.get(), Direction::Write, 1), *offsets);
    FAIL() << "expected JobError";
  } catch (const JobError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("write at offset 0 failed: Bad file descriptor"), std::string::npos)
        << what;
  }
}

TYPED_TEST(EngineTest, AppDepthIsTheTimeWeightedInFlightCount) {
  UniqueFd fd = this->Open(O_RDONLY | O_DIRECT);
  auto offsets = MakeRandom({.offset = 0, .size = kFileSize, .bs = 4096}, 3);
  EngineJob job = this->Job(fd.get(), Direction::Read, 8);
  job.runtime_s = 0.3;
  const EngineStats s = this->Run(job, *offsets);
  // psync: the busy fraction, ~1. io_uring: ~iodepth; a file on the host disk leaves
  // more room for scheduling noise than the 2% the loop-device acceptance run needs.
  const double want = TypeParam::DepthFor(8);
  EXPECT_NEAR(s.avg_depth, want, want * (TypeParam::kEngine == Engine::Psync ? 0.05 : 0.10));
  EXPECT_LE(s.avg_depth, want + 1e-9);
}

TYPED_TEST(EngineTest, IoPhaseClockAndBatches) {
  UniqueFd fd = this->Open(O_RDONLY | O_DIRECT);
  auto offsets = MakeSequential({.offset = 0, .size = kFileSize, .bs = 4096});
  const uint64_t before = MonotonicNs();
  const EngineStats s = this->Run(this->Job(fd.get(), Direction::Read, 4), *offsets);
  const uint64_t after = MonotonicNs();
  EXPECT_GE(s.start_ns, before);
  EXPECT_LT(s.start_ns, s.end_ns);
  EXPECT_LE(s.end_ns, after);
  EXPECT_NEAR(s.runtime_s, double(s.end_ns - s.start_ns) / 1e9, 1e-9);
  if (TypeParam::kEngine == Engine::Psync) {
    EXPECT_EQ(s.avg_submit_batch, 0);
    EXPECT_EQ(s.avg_complete_batch, 0);
  } else {
    EXPECT_GE(s.avg_submit_batch, 1);
    EXPECT_LE(s.avg_submit_batch, 4);
    EXPECT_GE(s.avg_complete_batch, 1);
    EXPECT_LE(s.avg_complete_batch, 4);
  }
}

TYPED_TEST(EngineTest, FsyncEveryAndEndFsyncAreCounted) {
  UniqueFd fd = this->Open(O_RDWR | O_DIRECT);
  auto offsets = MakeSequential({.offset = 0, .size = 64 * 4096, .bs = 4096});
  EngineJob job = this->Job(fd.get(), Direction::Write, 8);
  job.fsync_every = 16;
  EngineStats s = this->Run(job, *offsets);
  EXPECT_EQ(s.ios, 64u);
  EXPECT_EQ(s.fsyncs, 4u);
  EXPECT_EQ(s.fsync_latency.count(), 4u);
  EXPECT_EQ(s.latency.count(), 64u) << "fsyncs must stay out of the IO latency histogram";
  job.end_fsync = true;
  s = this->Run(job, *offsets);
  EXPECT_EQ(s.fsyncs, 5u);
  ASSERT_EQ(s.fsync_end_ns.size(), 5u);
  EXPECT_EQ(s.fsync_end_ns.back(), s.end_ns) << "the end fsync is inside the IO phase";
  job.fsync_every = 0;
  EXPECT_EQ(this->Run(job, *offsets).fsyncs, 1u);
}

TYPED_TEST(EngineTest, ReadJobsNeverFsync) {
  UniqueFd fd = this->Open(O_RDONLY);
  auto offsets = MakeSequential({.offset = 0, .size = 64 * 4096, .bs = 4096});
  EngineJob job = this->Job(fd.get(), Direction::Read, 4);
  job.fsync_every = 1;
  job.end_fsync = true;
  EXPECT_EQ(this->Run(job, *offsets).fsyncs, 0u);
}

TYPED_TEST(EngineTest, FailedFsyncIsAWarningNotACount) {
  UniqueFd fd(open("/dev/null", O_WRONLY | O_CLOEXEC));  // fsync on /dev/null: EINVAL
  auto offsets = MakeSequential({.offset = 0, .size = 8 * 4096, .bs = 4096});
  EngineJob job = this->Job(fd.get(), Direction::Write, 2);
  job.fsync_every = 2;
  job.end_fsync = true;
  const EngineStats s = this->Run(job, *offsets);
  EXPECT_EQ(s.fsyncs, 0u);
  const auto fsync_warnings =
      std::count_if(s.warnings.begin(), s.warnings.end(), [](const std::string& w) {
        return w.find("fsync failed") != std::string::npos;
      });
  EXPECT_EQ(fsync_warnings, 1) << "one warning per errno, not per fsync";
}

TEST(InFlightIntegralTest, WeighsEachCountByHowLongItLasted) {
  InFlightIntegral d;
  d.Set(100, 4);  // 4 in flight for 100 ns
  d.Set(200, 2);  // 2 for 200 ns
  d.Set(400, 0);  // none for 100 ns
  d.Set(500, 0);
  EXPECT_DOUBLE_EQ(d.Average(100, 500), (4.0 * 100 + 2.0 * 200) / 400);
  EXPECT_EQ(InFlightIntegral().Average(5, 5), 0);
}

EngineJob Limits(double runtime_s, uint64_t io_limit) {
  EngineJob job;
  job.bs = 4096;
  job.runtime_s = runtime_s;
  job.io_limit = io_limit;
  return job;
}

TEST(IoBudgetTest, OnePassWhenNoLimitIsSet) {
  IoBudget b(Limits(0, 0), 3, 0);
  for (int i = 0; i < 3; ++i) {
    EXPECT_TRUE(b.MayIssue(0));
    b.Issued();
  }
  EXPECT_FALSE(b.MayIssue(0));
}

TEST(IoBudgetTest, RuntimeIgnoresPassesAndStopsAtDeadline) {
  IoBudget b(Limits(1, 0), 3, 1000);
  for (int i = 0; i < 10; ++i) b.Issued();
  EXPECT_TRUE(b.MayIssue(1000 + 999999999));
  EXPECT_FALSE(b.MayIssue(1000 + 1000000000));
}

TEST(IoBudgetTest, IoLimitWinsWhenReachedBeforeRuntime) {
  IoBudget b(Limits(100, 8192), 1000, 0);
  b.Issued();
  EXPECT_TRUE(b.MayIssue(0));
  b.Issued();
  EXPECT_FALSE(b.MayIssue(0));
}

}  // namespace
}  // namespace storbed
