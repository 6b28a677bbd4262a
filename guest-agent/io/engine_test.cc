// One suite, run against every engine on a real file on disk.
#include "engine.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "aligned_buffer_for_test.h"
#include "io_buffer.h"
#include "temp_file_for_test.h"
#include "unique_fd.h"

namespace storbed {
namespace {

// kSync: one IO at a time (a depth warning, no batches). kWriteOnReadOnly: the error a
// write through an O_RDONLY fd gives.
struct PsyncTraits {
  static constexpr Engine kEngine = Engine::Psync;
  static constexpr bool kSync = true;
  static constexpr const char* kWriteOnReadOnly = "write at offset 0 failed: Bad file descriptor";
  static uint32_t DepthFor(uint32_t) { return 1; }
};
struct UringTraits {
  static constexpr Engine kEngine = Engine::IoUring;
  static constexpr bool kSync = false;
  static constexpr const char* kWriteOnReadOnly = "write at offset 0 failed: Bad file descriptor";
  static uint32_t DepthFor(uint32_t iodepth) { return iodepth; }
};
struct LibaioTraits {
  static constexpr Engine kEngine = Engine::Libaio;
  static constexpr bool kSync = false;
  static constexpr const char* kWriteOnReadOnly = "write at offset 0 failed: Bad file descriptor";
  static uint32_t DepthFor(uint32_t iodepth) { return iodepth; }
};
struct MmapTraits {
  static constexpr Engine kEngine = Engine::Mmap;
  static constexpr bool kSync = true;
  // A shared writable mapping of a read-only fd.
  static constexpr const char* kWriteOnReadOnly = "mmap at offset 0 failed: Permission denied";
  static uint32_t DepthFor(uint32_t) { return 1; }
};

struct Pvsync2Traits {
  static constexpr Engine kEngine = Engine::Pvsync2;
  static constexpr bool kSync = true;
  static constexpr const char* kWriteOnReadOnly =
      "pwritev2 at offset 0 failed: Bad file descriptor";
  static uint32_t DepthFor(uint32_t) { return 1; }
};
// RWF_HIPRI on a file whose device has no poll queues completes like plain pvsync2.
struct Pvsync2HipriTraits : Pvsync2Traits {
  static constexpr Engine kEngine = Engine::Pvsync2Hipri;
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

using Engines = ::testing::Types<PsyncTraits, UringTraits, LibaioTraits, MmapTraits, Pvsync2Traits,
                                 Pvsync2HipriTraits>;
TYPED_TEST_SUITE(EngineTest, Engines);

// The rows of common/engine_table.h, the agent's registered factories and this suite's
// list cannot drift apart.
TEST(EngineRegistryTest, EveryRowHasAFactoryAndRunsUnderTheSharedSuite) {
  const Engine in_suite[] = {PsyncTraits::kEngine, UringTraits::kEngine, LibaioTraits::kEngine,
                             MmapTraits::kEngine, Pvsync2Traits::kEngine,
                             Pvsync2HipriTraits::kEngine,
                             // Fails uncached reads by design: its own tests below.
                             Engine::Pvsync2Nowait};
  for (const EngineRow& row : EngineRows()) {
    EXPECT_TRUE(EngineBuiltIn(row.engine)) << row.name << " has no engine file registered";
    EXPECT_NE(MakeEngine(row.engine), nullptr) << row.name;
    EXPECT_NE(std::find(std::begin(in_suite), std::end(in_suite), row.engine), std::end(in_suite))
        << row.name << " is missing from EngineTest's list";
  }
  EXPECT_EQ(std::size(in_suite), EngineRows().size());
}

// Synchronous rows warn "ran at 1" and run one IO at a time; the suite's traits agree.
TYPED_TEST(EngineTest, TraitsAgreeWithTheEngineRow) {
  const EngineRow& row = RowOf(TypeParam::kEngine);
  EXPECT_EQ(row.async, !TypeParam::kSync);
  EXPECT_EQ(TypeParam::DepthFor(8), row.max_iodepth ? row.max_iodepth : 8);
}

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

// A job run in passes hands every pass the same buffers (EngineJob::buffers): the engine
// does its IO in them and leaves them to the runner.
TYPED_TEST(EngineTest, IoGoesThroughTheRunnersBuffers) {
  IoBuffers pool;
  const size_t depth = TypeParam::DepthFor(4);
  std::vector<uint8_t*> before;
  for (uint8_t* b : pool.Take(depth, 4096)) before.push_back(b);
  UniqueFd fd = this->Open(O_RDWR | O_DIRECT);
  auto offsets = MakeSequential({.offset = 0, .size = kFileSize, .bs = 4096});
  EngineJob job = this->Job(fd.get(), Direction::Write, 4);
  job.buffers = &pool;
  EXPECT_EQ(this->Run(job, *offsets).ios, kFileSize / 4096);
  const std::span<uint8_t* const> after = pool.Take(depth, 4096);
  ASSERT_EQ(after.size(), before.size());
  for (size_t i = 0; i < depth; ++i) {
    EXPECT_EQ(after[i], before[i]) << "buffer " << i << " was replaced";
    // Each buffer last held a write: some block's stamp, not the zeros it started with.
    EXPECT_NE(std::count(after[i], after[i] + 4096, 0), 4096) << "buffer " << i;
  }
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
  EXPECT_EQ(FindStampMismatch(buf.data(), kFileSize, 0, 1), std::nullopt);
}

// A read's data lands in the buffer a later write reuses: that write must still carry the
// whole stamp, not its header over the read's bytes. 64k blocks all share one body phase,
// so a buffer's body is otherwise kept from write to write.
TYPED_TEST(EngineTest, WritesAfterReadsInTheirBufferStampEveryByte) {
  constexpr uint64_t kBs = 65536;
  const std::vector<uint8_t> before = [&] {
    std::vector<uint8_t> data(kFileSize);
    UniqueFd fd = this->Open(O_RDONLY);
    EXPECT_EQ(pread(fd.get(), data.data(), kFileSize, 0), ssize_t(kFileSize));
    return data;
  }();
  {
    UniqueFd fd = this->Open(O_RDWR | O_DIRECT);
    auto offsets = MakeRandom({.offset = 0, .size = kFileSize, .bs = kBs}, 5);
    EngineJob job = this->Job(fd.get(), Direction::Mixed, 4);
    job.bs = kBs;
    job.read_pct = 50;
    job.io_limit = 8 * kFileSize;
    job.seed = 3;
    const EngineStats s = this->Run(job, *offsets);
    ASSERT_GT(s.reads, 16u);
    ASSERT_GT(s.writes, 16u);
  }
  UniqueFd fd = this->Open(O_RDONLY);
  AlignedBuffer after(kFileSize);
  ASSERT_EQ(pread(fd.get(), after.data(), kFileSize, 0), ssize_t(kFileSize));
  size_t written = 0;
  for (uint64_t off = 0; off < kFileSize; off += kBs) {
    if (std::memcmp(after.data() + off, before.data() + off, kBs) == 0) continue;
    ++written;
    const auto bad = FindStampMismatch(after.data() + off, kBs, off, 3);
    EXPECT_EQ(bad, std::nullopt) << "block " << off << ": " << bad->Describe(3);
  }
  EXPECT_GT(written, 8u);
}

TYPED_TEST(EngineTest, IodepthIsRespected) {
  UniqueFd fd = this->Open(O_RDONLY | O_DIRECT);
  auto offsets = MakeSequential({.offset = 0, .size = kFileSize, .bs = 4096});
  const EngineStats s = this->Run(this->Job(fd.get(), Direction::Read, 8), *offsets);
  EXPECT_EQ(s.max_in_flight, TypeParam::DepthFor(8));
  const std::string want = ToString(TypeParam::kEngine) + " is synchronous: iodepth 8 ran at 1";
  const bool warned = std::any_of(s.warnings.begin(), s.warnings.end(),
                                  [&](const std::string& w) { return w == want; });
  EXPECT_EQ(warned, TypeParam::kSync);
}

TYPED_TEST(EngineTest, ReapPollCompletesEveryIoOrSaysItDoesNotApply) {
  UniqueFd fd = this->Open(O_RDWR | O_DIRECT);
  auto offsets = MakeRandom({.offset = 0, .size = kFileSize, .bs = 4096}, 3);
  EngineJob job = this->Job(fd.get(), Direction::Mixed, 8);
  job.reap = Reap::Poll;
  job.read_pct = 50;
  job.fsync_every = 16;
  const EngineStats s = this->Run(job, *offsets);
  EXPECT_EQ(s.ios, kFileSize / 4096);
  EXPECT_EQ(s.latency.count(), s.ios);
  EXPECT_EQ(s.max_in_flight, TypeParam::DepthFor(8));
  EXPECT_GT(s.fsyncs, 0u);
  const std::string want =
      ToString(TypeParam::kEngine) + " is synchronous: reap poll does not apply";
  const bool warned = std::any_of(s.warnings.begin(), s.warnings.end(),
                                  [&](const std::string& w) { return w == want; });
  EXPECT_EQ(warned, TypeParam::kSync);
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
    EXPECT_NE(what.find(TypeParam::kWriteOnReadOnly), std::string::npos) << what;
  }
}

// An unoptimised ASan build spends long enough between a completion and its refill that
// the time-weighted depth of 8 reads 6.8-7.2 on this 2-core machine; the 10% bound holds
// for the optimised build that runs jobs.
#if defined(__SANITIZE_ADDRESS__)
constexpr double kAsyncDepthTolerance = 0.20;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr double kAsyncDepthTolerance = 0.20;
#else
constexpr double kAsyncDepthTolerance = 0.10;
#endif
#else
constexpr double kAsyncDepthTolerance = 0.10;
#endif

TYPED_TEST(EngineTest, AppDepthIsTheTimeWeightedInFlightCount) {
  UniqueFd fd = this->Open(O_RDONLY | O_DIRECT);
  // 64k IOs: each takes long enough on the host disk that the engine's own refill time
  // (slow in a sanitizer build) is a small share of it, as on a real device.
  auto offsets = MakeRandom({.offset = 0, .size = kFileSize, .bs = 65536}, 3);
  EngineJob job = this->Job(fd.get(), Direction::Read, 8);
  job.bs = 65536;
  job.runtime_s = 0.3;
  const EngineStats s = this->Run(job, *offsets);
  // psync: the busy fraction, ~1. io_uring, libaio: ~iodepth; a file on the host disk
  // leaves more room for scheduling noise than the 2% the loop-device acceptance run
  // needs. mmap: a page-cache copy takes about as long as the loop around it, so only
  // the upper bound holds.
  const double want = TypeParam::DepthFor(8);
  if (TypeParam::kEngine == Engine::Mmap)
    EXPECT_GT(s.avg_depth, 0.2);
  else
    EXPECT_NEAR(s.avg_depth, want, want * (TypeParam::kSync ? 0.05 : kAsyncDepthTolerance));
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
  if (TypeParam::kSync) {
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
  if (TypeParam::kEngine == Engine::Mmap) GTEST_SKIP() << "/dev/null cannot be mapped";
  UniqueFd fd(open("/dev/null", O_WRONLY | O_CLOEXEC));  // fsync on /dev/null: EINVAL
  auto offsets = MakeSequential({.offset = 0, .size = 8 * 4096, .bs = 4096});
  EngineJob job = this->Job(fd.get(), Direction::Write, 2);
  job.fsync_every = 2;
  job.end_fsync = true;
  const EngineStats s = this->Run(job, *offsets);
  EXPECT_EQ(s.fsyncs, 0u);
  const auto fsync_warnings = std::count_if(
      s.warnings.begin(), s.warnings.end(),
      [](const std::string& w) { return w.find("fsync failed") != std::string::npos; });
  EXPECT_EQ(fsync_warnings, 1) << "one warning per errno, not per fsync";
}

TYPED_TEST(EngineTest, MixedFollowsReadPctAndItsSeed) {
  UniqueFd fd = this->Open(O_RDWR | O_DIRECT);
  auto offsets = MakeRandom({.offset = 0, .size = kFileSize, .bs = 4096}, 11);
  EngineJob job = this->Job(fd.get(), Direction::Mixed, 4);
  job.read_pct = 70;
  job.io_limit = 4096 * 4096;
  job.seed = 7;
  const EngineStats a = this->Run(job, *offsets);
  EXPECT_EQ(a.ios, 4096u);
  EXPECT_EQ(a.reads + a.writes, a.ios);
  EXPECT_NEAR(double(a.reads) / double(a.ios), 0.70, 0.03) << a.reads << " reads";
  EXPECT_EQ(this->Run(job, *offsets).reads, a.reads) << "same seed, same directions";
  job.seed = 8;
  EXPECT_NE(this->Run(job, *offsets).reads, a.reads) << "another seed, other directions";
  job.read_pct = 0;
  EXPECT_EQ(this->Run(job, *offsets).reads, 0u);
}

TYPED_TEST(EngineTest, PureJobsCountTheirDirection) {
  UniqueFd fd = this->Open(O_RDWR | O_DIRECT);
  auto offsets = MakeSequential({.offset = 0, .size = 64 * 4096, .bs = 4096});
  EngineStats s = this->Run(this->Job(fd.get(), Direction::Write, 4), *offsets);
  EXPECT_EQ(s.writes, 64u);
  EXPECT_EQ(s.reads, 0u);
  s = this->Run(this->Job(fd.get(), Direction::Read, 4), *offsets);
  EXPECT_EQ(s.reads, 64u);
  EXPECT_EQ(s.writes, 0u);
  EXPECT_EQ(s.verified_bytes, 0u) << "no verify asked";
}

TYPED_TEST(EngineTest, VerifyRoundTripAndACorruptBlockIsNamed) {
  UniqueFd fd = this->Open(O_RDWR | O_DIRECT);
  auto offsets = MakeRandom({.offset = 0, .size = kFileSize, .bs = 4096}, 2);
  EngineJob job = this->Job(fd.get(), Direction::Write, 4);
  job.verify = true;
  job.seed = 7;
  EXPECT_EQ(this->Run(job, *offsets).verified_bytes, 0u) << "writes verify nothing";
  job.rw = Direction::Read;
  EXPECT_EQ(this->Run(job, *offsets).verified_bytes, kFileSize);

  // Garbage over the third sector of block 12, written around the engine.
  {
    UniqueFd raw = this->Open(O_WRONLY);
    const std::string junk(512, 'x');
    ASSERT_EQ(pwrite(raw.get(), junk.data(), junk.size(), 12 * 4096 + 1024), 512);
  }
  try {
    this->Run(job, *offsets);
    FAIL() << "expected JobError";
  } catch (const JobError& e) {
    EXPECT_EQ(std::string(e.what()),
              "verify failed on " + this->path_ +
                  ": block at offset 49152: sector 50176 holds offset 8680820740569200760 seed "
                  "8680820740569200760 without the stamp magic (expected offset 50176 seed 7)");
  }
  // Another job's seed is a mismatch too, named as such. Every block mismatches now, so
  // one IO at a time: at depth 4 the pair's second block may complete, and be named, first.
  job.seed = 9;
  job.iodepth = 1;
  auto sequential = MakeSequential({.offset = 0, .size = kFileSize, .bs = 4096});
  try {
    this->Run(job, *sequential);
    FAIL() << "expected JobError";
  } catch (const JobError& e) {
    EXPECT_NE(std::string(e.what()).find(": block at offset 0: sector 0 holds offset 0 seed 7 "
                                         "(expected offset 0 seed 9)"),
              std::string::npos)
        << e.what();
  }
}

// RWF_NOWAIT: data in the page cache is read; data that is not fails the IO with
// EAGAIN, and the job with it, as in fio.
TEST(Pvsync2NowaitTest, CachedReadsCompleteAndAnUncachedOneFailsWithEagain) {
  TempDir dir;
  const std::string path = WriteDataFile(dir.path(), "target", 64 * 4096);
  UniqueFd fd(open(path.c_str(), O_RDONLY | O_CLOEXEC));
  ASSERT_TRUE(fd.valid());
  AlignedBuffer all(64 * 4096);
  ASSERT_EQ(pread(fd.get(), all.data(), 64 * 4096, 0), 64 * 4096);  // now cached
  auto offsets = MakeSequential({.offset = 0, .size = 64 * 4096, .bs = 4096});
  const EngineJob job{.fd = fd.get(), .target = path, .rw = Direction::Read, .bs = 4096};
  EXPECT_EQ(MakeEngine(Engine::Pvsync2Nowait)->Run(job, *offsets).ios, 64u);

  // The file was fsynced when written: DONTNEED drops its clean pages. A NOWAIT miss still
  // starts readahead, and on a fast disk a sequential pass's readahead can land before each
  // read rechecks the cache (here 91 of 300 runs read all 64 pages without an EAGAIN).
  // Random offsets with FADV_RANDOM read ahead only the missed page itself, which is still
  // locked under IO when the read looks again: some read of the file fails, whichever.
  ASSERT_EQ(posix_fadvise(fd.get(), 0, 0, POSIX_FADV_DONTNEED), 0);
  ASSERT_EQ(posix_fadvise(fd.get(), 0, 0, POSIX_FADV_RANDOM), 0);
  auto again = MakeRandom({.offset = 0, .size = 64 * 4096, .bs = 4096}, 7);
  try {
    MakeEngine(Engine::Pvsync2Nowait)->Run(job, *again);
    FAIL() << "expected JobError";
  } catch (const JobError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(": preadv2 at offset "), std::string::npos) << what;
    EXPECT_NE(what.find(" failed: " + std::string(strerror(EAGAIN))), std::string::npos) << what;
  }
}

// Buffered AIO runs each IO inside io_submit, where a call of more than two IOs holds a
// block plug over their waits: the engine submits those one per call. O_DIRECT goes two
// per call (more would plug the batch until its last IO is prepared).
TEST(LibaioTest, BufferedSubmitsOneIoPerCallDirectTwo) {
  TempDir dir;
  const std::string path = WriteDataFile(dir.path(), "target", 64 * 4096);
  auto offsets = MakeSequential({.offset = 0, .size = 64 * 4096, .bs = 4096});
  for (const bool direct : {false, true}) {
    UniqueFd fd(open(path.c_str(), O_RDONLY | O_CLOEXEC | (direct ? O_DIRECT : 0)));
    ASSERT_TRUE(fd.valid());
    const EngineJob job{
        .fd = fd.get(), .target = path, .rw = Direction::Read, .bs = 4096, .iodepth = 8};
    const EngineStats s = MakeEngine(Engine::Libaio)->Run(job, *offsets);
    EXPECT_EQ(s.ios, 64u);
    if (direct) {
      EXPECT_GT(s.avg_submit_batch, 1.0) << "the first refill of 8 slots goes in 4 calls";
      EXPECT_LE(s.avg_submit_batch, 2.0);
    } else {
      EXPECT_EQ(s.avg_submit_batch, 1.0);
    }
  }
}

// io_uring submits two SQEs per call, buffered or O_DIRECT: a call of more plugs its bios
// until the last SQE is prepared. Each slot's clock starts at its own call.
TEST(UringTest, SubmitsTwoSqesPerCall) {
  TempDir dir;
  const std::string path = WriteDataFile(dir.path(), "target", 64 * 4096);
  for (const bool direct : {false, true}) {
    auto offsets = MakeSequential({.offset = 0, .size = 64 * 4096, .bs = 4096});
    UniqueFd fd(open(path.c_str(), O_RDONLY | O_CLOEXEC | (direct ? O_DIRECT : 0)));
    ASSERT_TRUE(fd.valid());
    const EngineJob job{
        .fd = fd.get(), .target = path, .rw = Direction::Read, .bs = 4096, .iodepth = 8};
    const EngineStats s = MakeEngine(Engine::IoUring)->Run(job, *offsets);
    EXPECT_EQ(s.ios, 64u);
    EXPECT_EQ(s.latency.count(), 64u);
    EXPECT_GT(s.avg_submit_batch, 1.0) << "the first refill of 8 slots goes in 4 calls";
    EXPECT_LE(s.avg_submit_batch, 2.0);
  }
}

// submit_batch (fio iodepth_batch_submit) sets the IOs per call: 8 IOs, all issued in
// the first refill, go in 8 / 4 / 1 calls for submit_batch 1 / 0 (the default pairs) / 8.
TEST(AsyncEngineTest, SubmitBatchSetsTheIosPerCall) {
  TempDir dir;
  const std::string path = WriteDataFile(dir.path(), "target", 64 * 4096);
  UniqueFd fd(open(path.c_str(), O_RDONLY | O_CLOEXEC | O_DIRECT));
  ASSERT_TRUE(fd.valid());
  for (const Engine engine : {Engine::Libaio, Engine::IoUring}) {
    for (const auto& [batch, per_call] : {std::pair{1u, 1.0}, {0u, 2.0}, {8u, 8.0}}) {
      auto offsets = MakeSequential({.offset = 0, .size = 64 * 4096, .bs = 4096});
      const EngineJob job{.fd = fd.get(),
                          .target = path,
                          .rw = Direction::Read,
                          .bs = 4096,
                          .iodepth = 8,
                          .submit_batch = batch,
                          .io_limit = 8 * 4096};
      const EngineStats s = MakeEngine(engine)->Run(job, *offsets);
      EXPECT_EQ(s.ios, 8u);
      EXPECT_EQ(s.avg_submit_batch, per_call) << ToString(engine) << " submit_batch " << batch;
    }
  }
}

TEST(DirectionChooserTest, PureDirectionsNeverDraw) {
  EngineJob job;
  job.rw = Direction::Write;
  job.read_pct = 100;  // ignored: not a mixed job
  DirectionChooser w(job);
  for (int i = 0; i < 100; ++i) EXPECT_TRUE(w.NextIsWrite());
  job.rw = Direction::Mixed;
  DirectionChooser all_reads(job);
  for (int i = 0; i < 100; ++i) EXPECT_FALSE(all_reads.NextIsWrite());
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
