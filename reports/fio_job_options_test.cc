#include "reports/fio_job_options.h"

#include <gtest/gtest.h>

namespace storbed {
namespace {

TEST(FioJobOptionsTest, ARandomReadJobHasFiosNamesAndValues) {
  JobSpec job;
  job.name = "rand";
  job.pattern = Pattern::Random;
  job.engine = Engine::IoUring;
  job.iodepth = 8;
  job.io_limit = 1 << 20;
  job.seed = 7;
  const FioJobOptions o = FioJobOptionsOf(job, "/dev/vda");
  EXPECT_EQ(o.options, (nlohmann::ordered_json{{"name", "rand"},
                                               {"filename", "/dev/vda"},
                                               {"rw", "randread"},
                                               {"ioengine", "io_uring"},
                                               {"bs", "4k"},
                                               {"iodepth", "8"},
                                               {"numjobs", "1"},
                                               {"io_size", "1m"},
                                               {"direct", "1"},
                                               {"randseed", "7"}}));
  EXPECT_TRUE(o.notes.empty());
}

TEST(FioJobOptionsTest, SetOptionsAppearAndMixedJobsCarryRwmixread) {
  JobSpec job;
  job.name = "mix";
  job.rw = Direction::Mixed;
  job.read_pct = 70;
  job.direct = false;
  job.engine = Engine::Mmap;
  job.size = 3 << 20;
  job.runtime_s = 2.5;
  job.loops = 3;
  job.fsync_every = 4;
  const auto o = FioJobOptionsOf(job, "").options;
  EXPECT_FALSE(o.contains("filename"));
  EXPECT_EQ(o.at("rw"), "rw");
  EXPECT_EQ(o.at("rwmixread"), "70");
  EXPECT_EQ(o.at("direct"), "0");
  EXPECT_EQ(o.at("ioengine"), "mmap");
  EXPECT_EQ(o.at("size"), "3m");
  EXPECT_EQ(o.at("runtime"), "2.5");
  EXPECT_EQ(o.at("loops"), "3");
  EXPECT_EQ(o.at("fsync"), "4");
  EXPECT_FALSE(o.contains("end_fsync"));
  EXPECT_FALSE(o.contains("randseed"));  // sequential
}

// fio's rw=read:<skip> is storbed's gappy with one block read per run; other gappy shapes
// and strided have no fio rw, and the notes say what was written instead.
TEST(FioJobOptionsTest, GappyWithOneBlockIsFiosSkipSuffixAndTheRestSayWhy) {
  JobSpec job;
  job.name = "g";
  job.pattern = Pattern::Gappy;
  job.gappy_read = 1;
  job.gappy_skip = 2;
  auto o = FioJobOptionsOf(job, "");
  EXPECT_EQ(o.options.at("rw"), "read:8k");
  EXPECT_TRUE(o.notes.empty());
  job.gappy_read = 2;
  o = FioJobOptionsOf(job, "");
  EXPECT_EQ(o.options.at("rw"), "read");
  ASSERT_EQ(o.notes.size(), 1u);
  EXPECT_NE(o.notes[0].find("has no fio rw"), std::string::npos) << o.notes[0];
  job.pattern = Pattern::Strided;
  job.rw = Direction::Write;
  o = FioJobOptionsOf(job, "");
  EXPECT_EQ(o.options.at("rw"), "write");
  ASSERT_EQ(o.notes.size(), 1u);
  EXPECT_NE(o.notes[0].find("strided"), std::string::npos) << o.notes[0];
}

TEST(FioJobOptionsTest, Pvsync2FlagsAreFiosOptionsNotEngines) {
  JobSpec job;
  job.engine = Engine::Pvsync2Hipri;
  auto o = FioJobOptionsOf(job, "").options;
  EXPECT_EQ(o.at("ioengine"), "pvsync2");
  EXPECT_EQ(o.at("hipri"), "1");
  job.engine = Engine::Pvsync2Nowait;
  o = FioJobOptionsOf(job, "").options;
  EXPECT_EQ(o.at("ioengine"), "pvsync2");
  EXPECT_EQ(o.at("nowait"), "1");
}

TEST(FioJobOptionsTest, SizesAreSpelledAsFioUsersWriteThem) {
  EXPECT_EQ(FioSizeText(512), "512");
  EXPECT_EQ(FioSizeText(4096), "4k");
  EXPECT_EQ(FioSizeText(6144), "6k");
  EXPECT_EQ(FioSizeText(1 << 20), "1m");
  EXPECT_EQ(FioSizeText(3ull << 30), "3g");
  EXPECT_EQ(FioSizeText(0), "0");
}

}  // namespace
}  // namespace storbed
