#include "scenario/fio_import.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

namespace storbed {
namespace {

const std::vector<std::string> kNvme = {"nvme"};

TEST(FioImportTest, MapsGlobalAndJobSections) {
  const FioImport f = ImportFio(R"(; a comment
[global]
ioengine=libaio
direct=1
bs=64k
runtime=3s
time_based
filename=/dev/vdb
# another comment
[seq]
rw=read
[rand]
rw=randread
bs=4k
iodepth=16
random_distribution=zipf:1.2
[mix]
rw=randrw
rwmixread=70
verify=crc32c
fsync=8
)",
                                "job.fio", kNvme);
  const Scenario& s = f.scenario;
  ASSERT_EQ(s.jobs.size(), 3u);
  EXPECT_EQ(s.name, "job");
  EXPECT_EQ(s.targets, std::vector<TargetKind>{TargetKind{Bus::Nvme}});
  EXPECT_EQ(s.jobs[0].engine, Engine::Libaio);
  EXPECT_TRUE(s.jobs[0].direct);
  EXPECT_EQ(s.jobs[0].bs, 65536u);
  EXPECT_DOUBLE_EQ(s.jobs[0].runtime_s, 3);
  EXPECT_EQ(s.jobs[1].pattern, Pattern::Random);
  EXPECT_EQ(s.jobs[1].bs, 4096u);
  EXPECT_EQ(s.jobs[1].iodepth, 16u);
  EXPECT_EQ(s.jobs[1].distribution, Distribution::Zipf);
  EXPECT_DOUBLE_EQ(s.jobs[1].zipf_theta, 1.2);
  EXPECT_EQ(s.jobs[2].rw, Direction::Mixed);
  EXPECT_EQ(s.jobs[2].read_pct, 70u);
  EXPECT_TRUE(s.jobs[2].verify);
  EXPECT_EQ(s.jobs[2].fsync_every, 8u);
  ASSERT_EQ(f.notes.size(), 3u);  // filename, once per job
  EXPECT_EQ(f.notes[0].rfind("job.fio:8: option 'filename' ignored", 0), 0u) << f.notes[0];
}

// rw=randread:N is fio's rw_sequencer: N IOs per random offset, storbed's random_run.
TEST(FioImportTest, RandomCountSuffixBecomesRandomRun) {
  const FioImport f = ImportFio("[r]\nrw=randread:8\nsize=8m\n", "r.fio", kNvme);
  EXPECT_EQ(f.scenario.jobs[0].pattern, Pattern::Random);
  EXPECT_EQ(f.scenario.jobs[0].random_run, 8u);
  ASSERT_EQ(f.notes.size(), 1u);
  EXPECT_EQ(f.notes[0].rfind("r.fio:2: option 'rw': randread:8 runs as random_run 8", 0), 0u)
      << f.notes[0];
  EXPECT_EQ(ImportFio("[r]\nrw=randread:1\n", "r.fio", kNvme).scenario.jobs[0].random_run, 1u);
  try {
    ImportFio("[r]\nrw=randread:0\n", "r.fio", kNvme);
    FAIL() << "randread:0 was accepted";
  } catch (const ScenarioError& e) {
    EXPECT_NE(std::string(e.what()).find("r.fio:2: option 'rw': randread:0: the count of IOs per "
                                         "random offset must be at least 1"),
              std::string::npos)
        << e.what();
  }
}

TEST(FioImportTest, SkipSuffixBecomesGappyInBlocks) {
  const Scenario s = ImportFio("[g]\nrw=read:48k\nbs=16k\nsize=32m\ninvalidate=0\n"
                               "fadvise_hint=1\n", "g.fio", kNvme).scenario;
  EXPECT_EQ(s.jobs[0].pattern, Pattern::Gappy);
  EXPECT_EQ(s.jobs[0].gappy_read, 1u);
  EXPECT_EQ(s.jobs[0].gappy_skip, 3u);
  EXPECT_EQ(s.jobs[0].size, 32ull << 20);
  EXPECT_FALSE(s.jobs[0].direct);  // fio's default is buffered
  EXPECT_EQ(s.jobs[0].cache, CacheState::Keep);
  EXPECT_EQ(s.jobs[0].fadvise, AccessHint::Sequential);
}

// Found by fio_import_fuzz: a skip with bs=0 divided by zero (SIGFPE in a release build).
TEST(FioImportTest, ASkipSuffixWithBsZeroIsRefusedNotDividedBy) {
  try {
    ImportFio("[g]\nrw=read:48k\nbs=0\n", "g.fio", kNvme);
    FAIL() << "accepted";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("bs"), std::string::npos) << e.what();
  }
}

TEST(FioImportTest, ZonedWithTwoZonesIsHotCold) {
  const Scenario s = ImportFio("[z]\nrw=randread\nrandom_distribution=zoned:80/20:20/80\n",
                               "z.fio", kNvme).scenario;
  EXPECT_EQ(s.jobs[0].distribution, Distribution::HotCold);
  EXPECT_DOUBLE_EQ(s.jobs[0].hot_pct, 80);
  EXPECT_DOUBLE_EQ(s.jobs[0].hot_fraction, 0.2);
}

TEST(FioImportTest, UnsupportedOptionsAreListedInOneLine) {
  try {
    ImportFio("[global]\nbs=4k\n\n[a]\nrw=read\nnumjobs=4\nramp_time=2\nrate=10m\n", "job.fio",
              kNvme);
    FAIL() << "accepted";
  } catch (const ScenarioError& e) {
    EXPECT_EQ(std::string(e.what()),
              "job.fio:7: option 'ramp_time' is not supported by storbed; job.fio:8: "
              "option 'rate' is not supported by storbed");
  }
}

// Seed 000's job lines (fio's cache-invalidation PR), as a job file.
constexpr const char* kSeed000Global =
    "[global]\nstonewall\nthread\nsize=1G\nfilename=fio.tmp\nbs=4k\n"
    "[create]\nrw=write\n"
    "[cached]\nrw=read\nloops=2\ninvalidate=0\n";

TEST(FioImportTest, Seed000CachedLoopsAreTwoPassesOnAKeptCache) {
  const auto f = ImportFio(kSeed000Global, "seed000.fio", kNvme);
  ASSERT_EQ(f.scenario.jobs.size(), 2u);
  const JobSpec& cached = f.scenario.jobs[1];
  EXPECT_EQ(cached.size, 1ull << 30);
  EXPECT_EQ(cached.loops, 2u) << "loops=2: two passes over the 1 GiB region";
  EXPECT_EQ(cached.io_limit, 0u);
  EXPECT_EQ(cached.cache, CacheState::Keep);
  EXPECT_FALSE(cached.invalidate_each_pass);
  EXPECT_EQ(f.scenario.jobs[0].loops, 1u) << "create has no loops: one pass";
  int ignored = 0;
  for (const auto& note : f.notes)
    if (note.find("option 'stonewall' ignored") != std::string::npos ||
        note.find("option 'thread' ignored") != std::string::npos)
      ++ignored;
  EXPECT_EQ(ignored, 4) << "stonewall and thread, noted once per job";
}

TEST(FioImportTest, LoopsWithInvalidateDropTheCacheBeforeEveryPass) {
  const auto f =
      ImportFio(std::string(kSeed000Global) + "[invalidated]\nrw=read\nloops=2\ninvalidate=1\n",
                "seed000.fio", kNvme);
  ASSERT_EQ(f.scenario.jobs.size(), 3u);
  const JobSpec& invalidated = f.scenario.jobs[2];
  EXPECT_EQ(invalidated.loops, 2u);
  EXPECT_EQ(invalidated.cache, CacheState::Cold);
  EXPECT_TRUE(invalidated.invalidate_each_pass);
  EXPECT_FALSE(invalidated.invalidate_in_runtime);
  bool noted = false;
  for (const auto& note : f.notes)
    noted |= note == "seed000.fio: invalidated: invalidate=1 with loops: the cache is dropped "
                     "before every pass, as fio does; each drop is timed outside runtime (add "
                     "invalidate_in_runtime to count it as fio does)";
  EXPECT_TRUE(noted);
}

TEST(FioImportTest, TimeBasedBufferedJobsDropEachPassAndDirectOnesDoNot) {
  const auto f = ImportFio(
      "[buffered]\nrw=randread\nsize=64m\ntime_based\nruntime=5\n"
      "[direct]\nrw=randread\nsize=64m\ntime_based\nruntime=5\ndirect=1\n"
      "[kept]\nrw=randread\nsize=64m\ntime_based\nruntime=5\ninvalidate=0\n",
      "j.fio", kNvme);
  ASSERT_EQ(f.scenario.jobs.size(), 3u);
  EXPECT_TRUE(f.scenario.jobs[0].invalidate_each_pass);
  EXPECT_FALSE(f.scenario.jobs[1].invalidate_each_pass);
  EXPECT_FALSE(f.scenario.jobs[2].invalidate_each_pass);
}

TEST(FioImportTest, NumberIosIsBlocksOfBsAndTheSmallerLimitWins) {
  const auto f = ImportFio(
      "[a]\nrw=randread\nbs=16k\nnumber_ios=3\n[b]\nrw=read\nio_size=8k\nnumber_ios=5\n",
      "j.fio", kNvme);
  EXPECT_EQ(f.scenario.jobs[0].io_limit, 3u * 16384);
  EXPECT_EQ(f.scenario.jobs[1].io_limit, 8192u);
  EXPECT_THROW(ImportFio("[a]\nnumber_ios=0\n", "j.fio", kNvme), ScenarioError);
}

TEST(FioImportTest, NumjobsMapsToThreadsSharingTheRegion) {
  const auto f = ImportFio("[a]\nrw=randread\nbs=4k\nnumjobs=4\n", "j.fio", kNvme);
  ASSERT_EQ(f.scenario.jobs.size(), 1u);
  EXPECT_EQ(f.scenario.jobs[0].numjobs, 4u);
  EXPECT_FALSE(f.scenario.jobs[0].numjobs_split);
  EXPECT_THROW(ImportFio("[a]\nrw=read\nnumjobs=65\n", "j.fio", kNvme), ScenarioError);
}

TEST(FioImportTest, Pvsync2IsItsOwnEngineAndSyncRunsAsPsyncWithANote) {
  const auto f = ImportFio("[a]\nioengine=pvsync2\n[b]\nioengine=sync\n", "j.fio", kNvme);
  ASSERT_EQ(f.scenario.jobs.size(), 2u);
  EXPECT_EQ(f.scenario.jobs[0].engine, Engine::Pvsync2);
  EXPECT_EQ(f.scenario.jobs[1].engine, Engine::Psync);
  ASSERT_EQ(f.notes.size(), 1u);
  EXPECT_EQ(f.notes[0], "j.fio:4: ioengine sync runs as psync (one positioned call at a time)");
}

TEST(FioImportTest, Pvsync2FlagsPickItsVariants) {
  const auto f = ImportFio("[a]\nioengine=pvsync2\nhipri\n[b]\nioengine=pvsync2\nnowait=1\n"
                           "[c]\nioengine=pvsync2\nhipri=0\n",
                           "j.fio", kNvme);
  ASSERT_EQ(f.scenario.jobs.size(), 3u);
  EXPECT_EQ(f.scenario.jobs[0].engine, Engine::Pvsync2Hipri);
  EXPECT_EQ(f.scenario.jobs[1].engine, Engine::Pvsync2Nowait);
  EXPECT_EQ(f.scenario.jobs[2].engine, Engine::Pvsync2);
  try {
    ImportFio("[a]\nioengine=io_uring\nhipri\n", "k.fio", kNvme);
    FAIL() << "accepted";
  } catch (const ScenarioError& e) {
    EXPECT_NE(std::string(e.what()).find("k.fio:3: option 'hipri': storbed maps it with "
                                         "ioengine pvsync2 only"),
              std::string::npos)
        << e.what();
  }
}

TEST(FioImportTest, CompletionPollingMapsToReapPoll) {
  const auto f = ImportFio(
      "[p]\nioengine=io_uring\niodepth_batch_complete_min=0\n"
      "[u]\nioengine=libaio\nuserspace_reap=1\n"
      "[w]\nioengine=io_uring\niodepth_batch_complete_min=1\n",
      "j.fio", kNvme);
  ASSERT_EQ(f.scenario.jobs.size(), 3u);
  EXPECT_EQ(f.scenario.jobs[0].reap, Reap::Poll);
  EXPECT_EQ(f.scenario.jobs[1].reap, Reap::Poll);
  EXPECT_EQ(f.scenario.jobs[2].reap, Reap::Wait);
  try {
    ImportFio("[a]\nioengine=io_uring\niodepth_batch_complete_min=4\n", "j.fio", kNvme);
    FAIL() << "accepted";
  } catch (const ScenarioError& e) {
    EXPECT_EQ(std::string(e.what()),
              "j.fio:3: option 'iodepth_batch_complete_min': storbed reaps whatever has "
              "completed, waiting for at least 1 (1) or polling (0), got '4'");
  }
}

// iodepth_batch_submit (alias iodepth_batch) is submit_batch; fio's 0 means iodepth.
TEST(FioImportTest, SubmitBatchMapsToSubmitBatch) {
  const auto f = ImportFio(
      "[a]\nioengine=libaio\niodepth=16\niodepth_batch_submit=4\n"
      "[b]\nioengine=io_uring\niodepth=8\niodepth_batch=0\n"
      "[c]\nioengine=io_uring\niodepth=8\n",
      "j.fio", kNvme);
  ASSERT_EQ(f.scenario.jobs.size(), 3u);
  EXPECT_EQ(f.scenario.jobs[0].submit_batch, 4u);
  EXPECT_EQ(f.scenario.jobs[1].submit_batch, 8u);
  EXPECT_EQ(f.scenario.jobs[2].submit_batch, 0u) << "unset: the agent's own choice";
  try {
    ImportFio("[a]\nioengine=psync\niodepth_batch_submit=2\n", "j.fio", kNvme);
    FAIL() << "accepted";
  } catch (const ScenarioError& e) {
    EXPECT_NE(std::string(e.what()).find("submit_batch: applies to ioengine \"io_uring\" and "
                                         "\"libaio\" only"),
              std::string::npos)
        << e.what();
  }
}

TEST(FioImportTest, HugePageIomemMapsToHugeBuffers) {
  const auto f = ImportFio(
      "[a]\niomem=mmaphuge:/hugetlbfs/f\n[b]\nmem=shmhuge\n[c]\niomem=malloc\n[d]\nbs=4k\n",
      "j.fio", kNvme);
  ASSERT_EQ(f.scenario.jobs.size(), 4u);
  EXPECT_TRUE(f.scenario.jobs[0].huge_buffers);
  EXPECT_TRUE(f.scenario.jobs[1].huge_buffers);
  EXPECT_FALSE(f.scenario.jobs[2].huge_buffers);
  EXPECT_FALSE(f.scenario.jobs[3].huge_buffers);
  ASSERT_EQ(f.notes.size(), 2u);  // one per huge-page job
  EXPECT_EQ(
      f.notes[0].rfind("j.fio:2: option 'iomem=mmaphuge:/hugetlbfs/f' runs as huge_buffers", 0), 0u)
      << f.notes[0];
  try {
    ImportFio("[a]\niomem=cudamalloc\n", "j.fio", kNvme);
    FAIL() << "accepted";
  } catch (const ScenarioError& e) {
    EXPECT_NE(std::string(e.what()).find("j.fio:2: option 'iomem': storbed maps malloc"),
              std::string::npos)
        << e.what();
  }
}

TEST(FioImportTest, BadValuesNameTheLine) {
  EXPECT_THROW(ImportFio("[a]\nrw=trim\n", "j.fio", kNvme), ScenarioError);
  EXPECT_THROW(ImportFio("[a]\nrw=read:6k\nbs=4k\n", "j.fio", kNvme), ScenarioError);
  EXPECT_THROW(ImportFio("[a]\nrw=randread\nrandom_distribution=pareto:0.9\n", "j.fio", kNvme),
               ScenarioError);
  EXPECT_THROW(ImportFio("[global]\nbs=4k\n", "j.fio", kNvme), ScenarioError);
  try {
    ImportFio("[a]\nioengine=windowsaio\n", "j.fio", kNvme);
    FAIL() << "accepted";
  } catch (const ScenarioError& e) {
    EXPECT_EQ(std::string(e.what()), "j.fio:2: option 'ioengine': 'windowsaio' is not supported by "
                                     "storbed (psync, io_uring, libaio, mmap, pvsync2, "
                                     "pvsync2_hipri, pvsync2_nowait)");
  }
  // The mapped scenario is validated as usual.
  try {
    ImportFio("[m]\nioengine=mmap\ndirect=1\n", "j.fio", kNvme);
    FAIL() << "accepted";
  } catch (const ScenarioError& e) {
    EXPECT_EQ(std::string(e.what()),
              "j.fio: jobs[0].ioengine: mmap reads go through the page cache: set direct false");
  }
}

TEST(FioImportTest, TargetsList) {
  EXPECT_EQ(ParseFioTargets("virtio-blk,bare-metal"),
            (std::vector<std::string>{"virtio-blk", "bare-metal"}));
  EXPECT_EQ(ParseFioTargets("").size(), 3u);
  EXPECT_EQ(ParseFioTargets("virtio-scsi"), std::vector<std::string>{"virtio-scsi"});
  EXPECT_THROW(ParseFioTargets("ide"), ScenarioError);
}

std::string FioError(const std::string& text, const std::string& path = "j.fio") {
  try {
    ImportFio(text, path, kNvme);
  } catch (const ScenarioError& e) {
    return e.what();
  }
  return "(accepted)";
}

// Regression: a section [a/b] ran, then its timelines write failed and a healthy guest
// was torn down.
TEST(FioImportTest, ASectionNameThatCannotNameAFileIsRefusedWithItsLine) {
  EXPECT_EQ(FioError("[a/b]\nbs=4k\n"),
            "j.fio:1: [\"a/b\"]: section name \"a/b\" may hold only letters, digits, '.', '_' "
            "and '-', beginning with a letter or digit (it names files, run ids and guests)");
  EXPECT_EQ(FioError("[ok]\nbs=4k\n[../../../tmp/evil]\nbs=4k\n"),
            "j.fio:3: [\"../../../tmp/evil\"]: section name \"../../../tmp/evil\" may hold only "
            "letters, digits, '.', '_' and '-', beginning with a letter or digit (it names "
            "files, run ids and guests)");
  EXPECT_EQ(FioError("[" + std::string(300, 'x') + "]\nbs=4k\n"),
            "j.fio:1: [\"" + std::string(256, 'x') +
                "\"... (300 bytes)]: section name is 300 characters long; names are at most 64");
}

TEST(FioImportTest, AFileNameThatIsNoScenarioNameIsMadeOne) {
  EXPECT_EQ(ImportFio("[a]\nbs=4k\n", "/tmp/my jobs (v2).fio", kNvme).scenario.name,
            "my-jobs--v2-");
}

TEST(FioImportTest, AFifoAsTheJobFileIsRefusedInsteadOfHanging) {
  const std::string path = ::testing::TempDir() + "/fio-fifo-" + std::to_string(getpid());
  unlink(path.c_str());
  ASSERT_EQ(mkfifo(path.c_str(), 0600), 0);
  try {
    ImportFioFile(path, kNvme);
    FAIL() << "accepted";
  } catch (const ScenarioError& e) {
    EXPECT_EQ(std::string(e.what()), path + ": the fio job file is a FIFO, not a regular file");
  }
  unlink(path.c_str());
}

}  // namespace
}  // namespace storbed
