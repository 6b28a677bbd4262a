// numjobs: several threads running one job, each with its own fd, engine and offsets,
// and their EngineStats merged into one result.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "engine.h"
#include "job_runner.h"
#include "temp_file_for_test.h"
#include "unique_fd.h"

namespace storbed {
namespace numjobs_test {  // named, not anonymous: a unity build joins files

constexpr uint64_t kSize = 8 << 20;
constexpr uint64_t kBlocks = kSize / 4096;

class NumjobsTest : public ::testing::Test {
 protected:
  void SetUp() override { path_ = WriteDataFile(dir_.path(), "data", kSize); }

  JobSpec Spec() const {
    JobSpec spec;
    spec.name = "numjobs";
    spec.target = path_;
    spec.cache = CacheState::Keep;
    spec.inflight_sample_ms = 0;
    spec.stats_sample_ms = 0;
    return spec;
  }

  TempDir dir_;
  std::string path_;
};

TEST_F(NumjobsTest, SharedRegionRunsOnePassPerThread) {
  for (Engine engine : {Engine::Psync, Engine::IoUring, Engine::Libaio, Engine::Mmap}) {
    SCOPED_TRACE(ToString(engine));
    JobSpec spec = Spec();
    spec.engine = engine;
    spec.pattern = Pattern::Random;
    spec.iodepth = engine == Engine::Psync || engine == Engine::Mmap ? 1 : 4;
    const JobResult one = RunJob(spec, "host device");
    EXPECT_EQ(one.ios, kBlocks);
    spec.numjobs = 4;
    const JobResult four = RunJob(spec, "host device");
    EXPECT_EQ(four.ios, 4 * one.ios);
    EXPECT_EQ(four.bytes, 4 * kSize);
    EXPECT_EQ(four.reads, four.ios);
    EXPECT_EQ(four.latency.count, four.ios);
    EXPECT_GT(four.runtime_s, 0);
    EXPECT_EQ(four.io_end_ns - four.io_start_ns, uint64_t(four.runtime_s * 1e9 + 0.5));
  }
}

TEST_F(NumjobsTest, IoLimitAppliesPerThreadLikeFio) {
  JobSpec spec = Spec();
  spec.numjobs = 3;
  spec.io_limit = 1 << 20;
  const JobResult r = RunJob(spec, "host device");
  EXPECT_EQ(r.bytes, 3u << 20);
  EXPECT_EQ(r.latency.count, r.ios);
}

// Split slices written with verify stamps, then read back in one pass by a single
// thread: every block was written (else the read fails verify) and the total is one
// pass, so each block was written exactly once.
TEST_F(NumjobsTest, SplitCoversEachSliceOnce) {
  JobSpec spec = Spec();
  spec.engine = Engine::IoUring;
  spec.iodepth = 4;
  spec.rw = Direction::Write;
  spec.verify = true;
  spec.seed = 9;
  spec.numjobs = 4;
  spec.numjobs_split = true;
  spec.pattern = Pattern::Random;
  const JobResult w = RunJob(spec, "host device");
  EXPECT_EQ(w.ios, kBlocks);
  EXPECT_EQ(w.writes, kBlocks);
  EXPECT_EQ(w.latency.count, w.ios);

  spec.rw = Direction::Read;
  spec.numjobs = 1;
  spec.numjobs_split = false;
  EXPECT_EQ(RunJob(spec, "host device").verified_bytes, kSize);

  spec.numjobs = 4;
  spec.numjobs_split = true;
  const JobResult r = RunJob(spec, "host device");
  EXPECT_EQ(r.ios, kBlocks);
  EXPECT_EQ(r.verified_bytes, kSize);
}

TEST_F(NumjobsTest, SplitRemainderGoesToTheLastSlice) {
  JobSpec spec = Spec();
  spec.size = 10 * 4096;  // 3 slices of 3 blocks, the last one 4
  spec.numjobs = 3;
  spec.numjobs_split = true;
  EXPECT_EQ(RunJob(spec, "host device").ios, 10u);
}

TEST_F(NumjobsTest, AppDepthIsTheSumOfTheThreadsDepths) {
  JobSpec spec = Spec();
  spec.engine = Engine::IoUring;
  spec.pattern = Pattern::Random;
  spec.iodepth = 8;
  spec.numjobs = 4;
  spec.runtime_s = 0.5;
  const JobResult r = RunJob(spec, "host device");
  EXPECT_NEAR(r.app_avg_depth, 32.0, 32.0 * 0.15);
  EXPECT_EQ(r.latency.count, r.ios);
}

TEST_F(NumjobsTest, MorePollersThanCpusAreWarnedAbout) {
  JobSpec spec = Spec();
  spec.engine = Engine::IoUring;
  spec.reap = Reap::Poll;
  spec.iodepth = 2;
  spec.io_limit = 64 * 4096;
  spec.numjobs = std::thread::hardware_concurrency() + 1;
  const JobResult r = RunJob(spec, "host device");
  EXPECT_EQ(r.ios, 64u * spec.numjobs);
  EXPECT_EQ(r.reap, "poll");
  const std::string want = "reap poll with numjobs " + std::to_string(spec.numjobs) + " on " +
                           std::to_string(spec.numjobs - 1) +
                           " CPUs: the pollers take turns, so completions wait again";
  EXPECT_NE(std::find(r.warnings.begin(), r.warnings.end(), want), r.warnings.end());
  spec.numjobs = 1;
  EXPECT_TRUE(RunJob(spec, "host device").warnings.empty());
}

TEST_F(NumjobsTest, OneFailingThreadFailsTheJobAfterTheOthersStop) {
  JobSpec spec = Spec();
  spec.engine = Engine::Libaio;
  spec.iodepth = 4;
  spec.verify = true;
  spec.seed = 3;
  spec.rw = Direction::Write;
  RunJob(spec, "host device");
  const uint64_t bad = kSize - 4096;  // in the last slice only
  {
    UniqueFd raw(open(path_.c_str(), O_WRONLY | O_CLOEXEC));
    const std::string junk(4096, '\0');
    ASSERT_EQ(pwrite(raw.get(), junk.data(), junk.size(), off_t(bad)), 4096);
  }
  spec.rw = Direction::Read;
  spec.numjobs = 4;
  spec.numjobs_split = true;
  try {
    RunJob(spec, "host device");
    ADD_FAILURE() << "expected JobError";
  } catch (const JobError& e) {
    EXPECT_NE(std::string(e.what()).find("block at offset " + std::to_string(bad)),
              std::string::npos)
        << e.what();
  }
}

TEST_F(NumjobsTest, BadNumjobsAreJobErrors) {
  JobSpec spec = Spec();
  spec.numjobs = 0;
  EXPECT_THROW(RunJob(spec, "host device"), JobError);
  spec.numjobs = 65;
  EXPECT_THROW(RunJob(spec, "host device"), JobError);
  spec.numjobs = 4;
  spec.numjobs_split = true;
  spec.size = 3 * 4096;  // fewer blocks than threads
  EXPECT_THROW(RunJob(spec, "host device"), JobError);
}

TEST(NumjobsJson, RoundTripsAndRejectsOutOfRange) {
  JobSpec spec;
  spec.name = "j";
  spec.target = "/dev/vdb";
  spec.numjobs = 8;
  spec.numjobs_split = true;
  nlohmann::json j;
  to_json(j, spec);
  JobSpec back;
  from_json(j, back);
  EXPECT_EQ(back.numjobs, 8u);
  EXPECT_TRUE(back.numjobs_split);
  j.erase("numjobs");
  j.erase("numjobs_split");
  from_json(j, back);
  EXPECT_EQ(back.numjobs, 1u);
  EXPECT_FALSE(back.numjobs_split);
  j["numjobs"] = 65;
  EXPECT_THROW(from_json(j, back), std::invalid_argument);
  j["numjobs"] = 0;
  EXPECT_THROW(from_json(j, back), std::invalid_argument);
}

TEST(MergeEngineStatsTest, SumsCountsAndWeightsDepthAndBatches) {
  EngineStats a, b;
  a.ios = 100;
  a.bytes = 409600;
  a.reads = 100;
  a.start_ns = 1000;
  a.end_ns = 2000;  // 1000 ns at depth 4
  a.avg_depth = 4;
  a.avg_submit_batch = 4;  // 25 calls
  a.avg_complete_batch = 2;
  a.warnings = {"w1", "w2"};
  for (int i = 0; i < 100; ++i) a.latency.Record(1000);
  b.ios = 50;
  b.bytes = 204800;
  b.reads = 50;
  b.start_ns = 1500;
  b.end_ns = 3000;  // 1500 ns at depth 2
  b.avg_depth = 2;
  b.avg_submit_batch = 1;  // 50 calls
  b.avg_complete_batch = 1;
  b.warnings = {"w2", "w3"};
  for (int i = 0; i < 50; ++i) b.latency.Record(2000);

  const EngineStats m = MergeEngineStats({a, b});
  EXPECT_EQ(m.ios, 150u);
  EXPECT_EQ(m.bytes, 614400u);
  EXPECT_EQ(m.reads, 150u);
  EXPECT_EQ(m.latency.count(), 150u);
  EXPECT_EQ(m.start_ns, 1000u);
  EXPECT_EQ(m.end_ns, 3000u);
  EXPECT_DOUBLE_EQ(m.runtime_s, 2000e-9);
  EXPECT_DOUBLE_EQ(m.avg_depth, (4.0 * 1000 + 2.0 * 1500) / 2000);
  EXPECT_DOUBLE_EQ(m.avg_submit_batch, 150.0 / 75);
  EXPECT_DOUBLE_EQ(m.avg_complete_batch, 150.0 / 100);
  EXPECT_EQ(m.warnings, (std::vector<std::string>{"w1", "w2", "w3"}));
}

}  // namespace numjobs_test
}  // namespace storbed
