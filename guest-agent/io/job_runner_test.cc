#include "job_runner.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <map>
#include <vector>
#include <string>

#include <gtest/gtest.h>

#include "engine.h"
#include "temp_file_for_test.h"
#include "unique_fd.h"

namespace storbed {
namespace {

constexpr uint64_t kSize = 8 << 20;
constexpr const char* kHoleWarning = "target has holes: reads of holes never reach the device";

bool HasWarning(const JobResult& r, const std::string& prefix) {
  return std::any_of(r.warnings.begin(), r.warnings.end(),
                     [&](const std::string& w) { return w.rfind(prefix, 0) == 0; });
}

class JobRunnerTest : public ::testing::Test {
 protected:
  void SetUp() override { path_ = WriteDataFile(dir_.path(), "data", kSize); }

  JobSpec Spec() const {
    JobSpec spec;
    spec.name = "test";
    spec.target = path_;
    spec.cache = CacheState::Keep;  // cold start only where a test needs it
    return spec;
  }

  TempDir dir_;
  std::string path_;
};

TEST_F(JobRunnerTest, OnePassSequentialReadIsExact) {
  const JobResult r = RunJob(Spec(), "host device");
  EXPECT_EQ(r.job, "test");
  EXPECT_EQ(r.target, path_);
  EXPECT_EQ(r.ios, kSize / 4096);
  EXPECT_EQ(r.bytes, kSize);
  EXPECT_EQ(r.latency.count, kSize / 4096);
  EXPECT_GT(r.latency.p50_us, 0);
  EXPECT_LE(r.latency.p50_us, r.latency.max_us);
  ASSERT_GT(r.runtime_s, 0);
  EXPECT_NEAR(r.iops, r.ios / r.runtime_s, 1e-6 * r.iops);
  EXPECT_NEAR(r.mib_s, 8.0 / r.runtime_s, 1e-6 * r.mib_s);
  EXPECT_EQ(r.prepare_steps, "none");
  EXPECT_EQ(r.block.layer, "host device");
  EXPECT_FALSE(HasWarning(r, kHoleWarning));
}

TEST_F(JobRunnerTest, LoopsRunThatManyPassesOverTheRegion) {
  JobSpec spec = Spec();
  spec.loops = 3;
  const JobResult r = RunJob(spec, "host device");
  EXPECT_EQ(r.passes, 3u);
  EXPECT_EQ(r.ios, 3 * kSize / 4096);
  EXPECT_EQ(r.bytes, 3 * kSize);
  EXPECT_TRUE(r.invalidations_s.empty());
  EXPECT_EQ(r.latency.count, 3 * kSize / 4096);
}

// fio's invalidate=1 with loops: the pages are dropped before the second pass too. The
// drop is timed, and kept out of runtime unless invalidate_in_runtime puts it in.
TEST_F(JobRunnerTest, EachPassInvalidationIsTimedAndOutsideRuntimeUnlessAsked) {
  JobSpec spec = Spec();
  spec.direct = false;
  spec.bs = 64 << 10;
  spec.cache = CacheState::Cold;
  spec.loops = 2;
  spec.invalidate_each_pass = true;
  for (const bool in_runtime : {false, true}) {
    SCOPED_TRACE(in_runtime);
    spec.invalidate_in_runtime = in_runtime;
    const JobResult r = RunJob(spec, "host device");
    EXPECT_EQ(r.passes, 2u);
    EXPECT_EQ(r.bytes, 2 * kSize);
    ASSERT_EQ(r.invalidations_s.size(), 1u);
    const double drop = r.invalidations_s[0];
    EXPECT_GT(drop, 0);
    const double wall = double(r.io_end_ns - r.io_start_ns) / 1e9;
    EXPECT_LE(r.runtime_s, wall + 1e-6);
    if (in_runtime) {
      EXPECT_GE(r.runtime_s, drop);
    } else {
      EXPECT_LE(r.runtime_s + drop, wall + 1e-6) << "the drop is a gap, not IO time";
    }
    EXPECT_NEAR(r.iops, r.ios / r.runtime_s, 1e-6 * r.iops);
  }
}

TEST_F(JobRunnerTest, UnderARuntimePassesRepeatWithADropBeforeEach) {
  JobSpec spec = Spec();
  spec.direct = false;
  spec.size = 256 << 10;
  spec.cache = CacheState::Cold;
  spec.runtime_s = 0.3;
  spec.invalidate_each_pass = true;
  const JobResult r = RunJob(spec, "host device");
  EXPECT_GE(r.passes, 2u);
  EXPECT_EQ(r.invalidations_s.size(), r.passes - 1);
  EXPECT_LE(r.runtime_s, 0.3 + 0.1);
  EXPECT_GE(r.ios, (r.passes - 1) * (256 / 4));
}

TEST_F(JobRunnerTest, ColdDirectReadReachesTheBlockDevice) {
  JobSpec spec = Spec();
  spec.cache = CacheState::Cold;
  spec.engine = Engine::IoUring;
  spec.iodepth = 8;
  const JobResult r = RunJob(spec, "host device");
  EXPECT_EQ(r.ios, kSize / 4096);
  EXPECT_NE(r.prepare_steps.find("fadvise(DONTNEED)"), std::string::npos) << r.prepare_steps;
  // Buggy: "sync, drop_caches=3, ..." on the host, every tenant's cache emptied.
  EXPECT_EQ(r.prepare_steps.find("drop_caches"), std::string::npos) << r.prepare_steps;
  EXPECT_EQ(r.cache_scope, "target");
  EXPECT_GE(r.cached_fraction, 0);
  EXPECT_LT(r.cached_fraction, 0.05) << "what mincore found left of the target";
  EXPECT_GT(r.prepare_s, 0);
  if (!r.block.available) GTEST_SKIP() << "no block stats here: " << r.block.reason;
  EXPECT_FALSE(r.block.device.empty());
  EXPECT_GT(r.block.reads, 0u);
  EXPECT_GT(r.block.read_bytes, 0u);
  EXPECT_GT(r.block.interval_s, 0);
}

TEST_F(JobRunnerTest, IoPhaseFieldsAndSamplerTimelines) {
  JobSpec spec = Spec();
  spec.engine = Engine::IoUring;
  spec.pattern = Pattern::Random;
  spec.iodepth = 4;
  spec.runtime_s = 0.3;
  spec.inflight_sample_ms = 10;
  spec.stats_sample_ms = 50;
  const uint64_t before = MonotonicNs();
  const JobResult r = RunJob(spec, "host device");
  EXPECT_GE(r.io_start_ns, before);
  EXPECT_NEAR(double(r.io_end_ns - r.io_start_ns) / 1e9, r.runtime_s, 1e-9);
  EXPECT_GT(r.app_avg_depth, 3.0);
  EXPECT_LE(r.app_avg_depth, 4.0);
  // The L0 distribution is the same count as the average: it covers the phase, its mean
  // is app_avg_depth, and it never passes iodepth.
  double total_ns = 0, request_ns = 0;
  for (size_t n = 0; n < r.app_inflight_ns.size(); ++n) {
    total_ns += r.app_inflight_ns[n];
    request_ns += double(n) * r.app_inflight_ns[n];
  }
  EXPECT_NEAR(total_ns / 1e9, r.runtime_s, 1e-6);
  ASSERT_GT(total_ns, 0);
  EXPECT_NEAR(request_ns / total_ns, r.app_avg_depth, 1e-6);
  EXPECT_LE(r.app_inflight_ns.size(), 5u);
  EXPECT_GE(r.avg_submit_batch, 1.0);
  EXPECT_GE(r.avg_complete_batch, 1.0);
  EXPECT_EQ(r.fsyncs, 0u);
  for (const auto& w : r.warnings) EXPECT_EQ(w.find("sampler"), std::string::npos) << w;

  std::map<std::string, const Timeline*> by_name;
  for (const auto& t : r.timelines) by_name[t.name] = &t;
  std::vector<std::string> want = {"guest.meminfo.cached", "guest.meminfo.dirty",
                                   "guest.vmstat.pgpgin", "guest.cpu0.iowait"};
  if (r.block.available) {
    want.push_back("guest." + r.block.device + ".inflight");
    want.push_back("guest." + r.block.device + ".depth");
    want.push_back("guest." + r.block.device + ".iops");
    EXPECT_GT(r.nr_hw_queues, 0u);
    EXPECT_GT(r.nr_tags, 0u);
  }
  for (const auto& name : want) {
    ASSERT_TRUE(by_name.count(name)) << name;
    const Timeline& t = *by_name[name];
    EXPECT_TRUE(std::is_sorted(t.t_s.begin(), t.t_s.end())) << name;
    EXPECT_LE(t.t_s.back(), r.runtime_s + 0.1) << name;
    // ~30 fast or ~6 slow samples in 0.3 s; skipped ticks on a busy machine, never extra.
    const bool fast = name.find(".inflight") != std::string::npos;
    EXPECT_LE(t.t_s.size(), fast ? 32u : 8u) << name;
    EXPECT_GE(t.t_s.size(), fast ? 10u : 3u) << name;
  }
}

TEST_F(JobRunnerTest, SamplersOffWhenPeriodsAreZero) {
  JobSpec spec = Spec();
  spec.inflight_sample_ms = 0;
  spec.stats_sample_ms = 0;
  EXPECT_TRUE(RunJob(spec, "host device").timelines.empty());
}

TEST_F(JobRunnerTest, WriteJobFsyncsAndTheirLatencyTimeline) {
  JobSpec spec = Spec();
  spec.rw = Direction::Write;
  spec.size = 64 * 4096;
  spec.fsync_every = 16;
  spec.end_fsync = true;
  spec.inflight_sample_ms = 0;
  spec.stats_sample_ms = 0;
  const JobResult r = RunJob(spec, "host device");
  EXPECT_EQ(r.ios, 64u);
  EXPECT_EQ(r.fsyncs, 5u);
  ASSERT_EQ(r.timelines.size(), 1u);
  EXPECT_EQ(r.timelines[0].name, "app.fsync.latency");
  EXPECT_EQ(r.timelines[0].value.size(), 5u);
}

TEST_F(JobRunnerTest, RegionOffsetSizeAndIoLimit) {
  JobSpec spec = Spec();
  spec.offset = 1 << 20;
  spec.size = 1 << 20;
  spec.pattern = Pattern::Random;
  EXPECT_EQ(RunJob(spec, "host device").ios, 256u);
  spec.io_limit = 40 * 4096;
  EXPECT_EQ(RunJob(spec, "host device").bytes, 40u * 4096);
}

TEST_F(JobRunnerTest, WriteJobCountsAndSizeDefaultsToTheRest) {
  JobSpec spec = Spec();
  spec.rw = Direction::Write;
  spec.offset = kSize - (64 << 10);
  spec.bs = 8192;
  const JobResult r = RunJob(spec, "host device");
  EXPECT_EQ(r.ios, 8u);
  EXPECT_EQ(r.bytes, 64u << 10);
}

TEST_F(JobRunnerTest, SparseFileReadWarnsAboutHoles) {
  const std::string sparse = dir_.path() + "/sparse";
  {
    UniqueFd fd(open(sparse.c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0600));
    ASSERT_EQ(ftruncate(fd.get(), 1 << 20), 0);
  }
  JobSpec spec = Spec();
  spec.target = sparse;
  const JobResult r = RunJob(spec, "host device");
  EXPECT_EQ(r.ios, 256u);
  EXPECT_TRUE(HasWarning(r, kHoleWarning)) << "warnings: " << r.warnings.size();
}

TEST_F(JobRunnerTest, PsyncDepthWarningReachesTheResult) {
  JobSpec spec = Spec();
  spec.iodepth = 4;
  EXPECT_TRUE(HasWarning(RunJob(spec, "host device"), "psync is synchronous: iodepth 4 ran at 1"));
}

TEST_F(JobRunnerTest, BadJobsAreJobErrors) {
  JobSpec spec = Spec();
  spec.target = dir_.path() + "/missing";
  EXPECT_THROW(RunJob(spec, "host device"), JobError);
  spec = Spec();
  spec.offset = kSize;
  EXPECT_THROW(RunJob(spec, "host device"), JobError);
  spec = Spec();
  spec.size = 2048;
  EXPECT_THROW(RunJob(spec, "host device"), JobError);
  spec = Spec();
  spec.size = 2 * kSize;
  EXPECT_THROW(RunJob(spec, "host device"), JobError);
  spec = Spec();
  spec.bs = 1000;  // not a sector multiple, with O_DIRECT
  EXPECT_THROW(RunJob(spec, "host device"), JobError);
  try {
    spec = Spec();
    spec.target = dir_.path() + "/missing";
    RunJob(spec, "host device");
  } catch (const JobError& e) {
    // Bad input (exit 2, the field named), not a failed open(2) as if the host broke.
    EXPECT_EQ(std::string(e.what()), "job 'test' on " + spec.target + ": target: " + spec.target +
                                         " does not exist");
    EXPECT_NE(dynamic_cast<const JobSpecError*>(&e), nullptr);
  }
}

TEST_F(JobRunnerTest, NoBlockDeviceUnderAnonymousFilesystem) {
  // /dev/shm is tmpfs on Linux: no O_DIRECT, no device.
  char tmpl[] = "/dev/shm/storbed-io-test-XXXXXX";
  const int raw = mkstemp(tmpl);
  if (raw < 0) GTEST_SKIP() << "no writable /dev/shm";
  UniqueFd fd(raw);
  std::vector<char> data(1 << 16, 'x');
  ASSERT_EQ(write(fd.get(), data.data(), data.size()), ssize_t(data.size()));
  JobSpec spec = Spec();
  spec.target = tmpl;
  spec.direct = false;
  const JobResult r = RunJob(spec, "host device");
  unlink(tmpl);
  EXPECT_EQ(r.ios, 16u);
  EXPECT_FALSE(r.block.available);
  EXPECT_EQ(r.block.reason.rfind(std::string("no block device under ") + tmpl + ": ", 0), 0u)
      << r.block.reason;
}

TEST_F(JobRunnerTest, MixedJobCountsReadsAndWrites) {
  JobSpec spec = Spec();
  spec.rw = Direction::Mixed;
  spec.read_pct = 70;
  spec.pattern = Pattern::Random;
  spec.engine = Engine::Libaio;
  spec.iodepth = 4;
  spec.size = 1 << 20;
  spec.io_limit = 4096 * 4096;
  const JobResult r = RunJob(spec, "host device");
  EXPECT_EQ(r.ios, 4096u);
  EXPECT_EQ(r.reads + r.writes, r.ios);
  EXPECT_NEAR(double(r.reads) / double(r.ios), 0.70, 0.03);
  spec.read_pct = 101;
  EXPECT_THROW(RunJob(spec, "host device"), JobError);
}

TEST_F(JobRunnerTest, PureJobsFillReadsOrWrites) {
  JobSpec spec = Spec();
  spec.size = 64 * 4096;
  JobResult r = RunJob(spec, "host device");
  EXPECT_EQ(r.reads, 64u);
  EXPECT_EQ(r.writes, 0u);
  spec.rw = Direction::Write;
  r = RunJob(spec, "host device");
  EXPECT_EQ(r.reads, 0u);
  EXPECT_EQ(r.writes, 64u);
}

TEST_F(JobRunnerTest, VerifyCatchesACorruptBlockOnEveryEngine) {
  for (Engine engine : {Engine::Psync, Engine::IoUring, Engine::Libaio, Engine::Mmap}) {
    SCOPED_TRACE(ToString(engine));
    JobSpec spec = Spec();
    spec.engine = engine;
    spec.iodepth = 4;
    spec.verify = true;
    spec.seed = 7;
    spec.offset = 1 << 20;
    spec.size = 2 << 20;
    spec.rw = Direction::Write;
    EXPECT_EQ(RunJob(spec, "host device").verified_bytes, 0u);
    spec.rw = Direction::Read;
    spec.pattern = Pattern::Random;
    EXPECT_EQ(RunJob(spec, "host device").verified_bytes, 2u << 20);

    const uint64_t bad = (1 << 20) + 37 * 4096;
    {
      UniqueFd raw(open(path_.c_str(), O_WRONLY | O_CLOEXEC));
      const std::string junk(4096, '\0');
      ASSERT_EQ(pwrite(raw.get(), junk.data(), junk.size(), off_t(bad)), 4096);
    }
    try {
      RunJob(spec, "host device");
      ADD_FAILURE() << "expected JobError";
    } catch (const JobError& e) {
      EXPECT_EQ(std::string(e.what()),
                "verify failed on " + path_ + ": block at offset " + std::to_string(bad) +
                    ": sector " + std::to_string(bad) +
                    " holds offset 0 seed 0 without the stamp magic (expected offset " +
                    std::to_string(bad) + " seed 7)");
    }
  }
}

TEST_F(JobRunnerTest, MmapRemapsAreNotedAndBufferedLibaioWarns) {
  JobSpec spec = Spec();
  spec.engine = Engine::Mmap;
  spec.direct = false;
  spec.bs = 64 << 10;
  spec.mmap_window = 1 << 20;
  spec.madvise = AccessHint::Sequential;
  JobResult r = RunJob(spec, "host device");
  EXPECT_EQ(r.ios, kSize / (64 << 10));
  EXPECT_TRUE(HasWarning(r, "mmap: 8 maps, 8 unmaps of 1048576-byte windows"));
  spec = Spec();
  spec.engine = Engine::Libaio;
  spec.direct = false;
  r = RunJob(spec, "host device");
  EXPECT_TRUE(HasWarning(r, "libaio without direct IO is synchronous in Linux"));
}

TEST_F(JobRunnerTest, PrepareTargetKeepDoesNothing) {
  const Prepared p = PrepareTarget({.target = path_, .cache = CacheState::Keep}, "host device");
  EXPECT_EQ(p.target, path_);
  EXPECT_EQ(p.steps, "none");
  EXPECT_THROW(
      PrepareTarget({.target = dir_.path() + "/missing", .cache = CacheState::Cold}, "host device"),
      JobError);
}

TEST_F(JobRunnerTest, PrepareTargetOnTheHostNamesItsScope) {
  const Prepared p = PrepareTarget({.target = path_, .cache = CacheState::Cold}, "host device");
  EXPECT_EQ(p.steps.find("drop_caches"), std::string::npos) << p.steps;
  EXPECT_NE(p.steps.find("; dropped: target"), std::string::npos) << p.steps;
}

TEST(PlaceOfTest, OnlyTheGuestLayerIsAGuest) {
  EXPECT_EQ(PlaceOf(kGuestBlockLayer), AgentPlace::Guest);
  EXPECT_EQ(PlaceOf(kHostDeviceLayer), AgentPlace::Host);
  EXPECT_EQ(PlaceOf("something else"), AgentPlace::Host) << "unknown places are somebody's host";
}

}  // namespace
}  // namespace storbed
