#include "execute/buffer_memory.h"

#include <gtest/gtest.h>

namespace storbed {
namespace {

JobSpec Job(uint64_t bs, uint32_t iodepth, uint32_t numjobs, Engine engine = Engine::IoUring) {
  JobSpec j;
  j.bs = bs;
  j.iodepth = iodepth;
  j.numjobs = numjobs;
  j.engine = engine;
  return j;
}

TEST(BufferMemoryTest, AnAsyncJobHoldsBsTimesIodepthTimesNumjobs) {
  const BufferNeed need = JobBufferNeed(Job(64 << 20, 64, 2), 0);
  EXPECT_EQ(need.bytes, 8ull << 30);
  EXPECT_EQ(need.how, "bs 64m x iodepth 64 x numjobs 2");
}

TEST(BufferMemoryTest, ASynchronousEngineHoldsOneIoWhateverIodepthSays) {
  EXPECT_EQ(JobBufferNeed(Job(1 << 20, 32, 4, Engine::Psync), 0).bytes, 4ull << 20);
}

TEST(BufferMemoryTest, TheMmapEngineAddsItsWindowOrTheRegionPerJob) {
  JobSpec j = Job(4096, 1, 2, Engine::Mmap);
  EXPECT_EQ(JobBufferNeed(j, 64 << 20).bytes, 2 * 4096 + 2 * (64ull << 20));
  j.mmap_window = 1 << 20;
  const BufferNeed need = JobBufferNeed(j, 64 << 20);
  EXPECT_EQ(need.bytes, 2 * 4096 + 2 * (1ull << 20));
  EXPECT_EQ(need.how, "bs 4k x iodepth 1 x numjobs 2 + mmap window 1m x numjobs 2");
}

TEST(BufferMemoryTest, A16tRegionTimesNumjobsDoesNotWrap) {
  JobSpec j = Job(4096, 1, 64, Engine::Mmap);
  j.size = 1ull << 58;
  EXPECT_EQ(JobBufferNeed(j, 0).bytes, UINT64_MAX);
}

TEST(BufferMemoryTest, MemAvailableIsReadInBytes) {
  EXPECT_EQ(MemAvailableBytes("MemTotal: 100 kB\nMemFree: 5 kB\nMemAvailable:    2048 kB\n"),
            2048u * 1024);
  EXPECT_EQ(MemAvailableBytes("MemTotal: 100 kB\n"), std::nullopt);
}

TEST(BufferMemoryTest, HalfTheMemoryIsTheLimit) {
  const BufferNeed half{512ull << 20, "x"};
  EXPECT_EQ(BufferMemoryProblem(half, 1ull << 30, "machine.memory"), "");
  const BufferNeed more{(512ull << 20) + 1, "bs 4k"};
  EXPECT_EQ(BufferMemoryProblem(more, 1ull << 30, "machine.memory"),
            "bs 4k = 512.0m of IO buffers, more than 50% of machine.memory (1g); the rest is "
            "the kernel's and the page cache's: lower bs, iodepth or numjobs");
}

TEST(BufferMemoryTest, SizesReadAsTheScenarioWritesThem) {
  EXPECT_EQ(SizeText(4096), "4k");
  EXPECT_EQ(SizeText(3ull << 30), "3g");
  EXPECT_EQ(SizeText(1536ull << 20), "1.5g");
  EXPECT_EQ(SizeText(100), "100");
  EXPECT_EQ(SizeText(16ull << 40), "16t");
}

// Issue 38: a bare-metal bs 64m x iodepth 64 run was OOM-killed after a "valid" dry run.
TEST(BufferMemoryTest, ABareMetalJobAboveHalfTheHostsMemAvailableIsRefused) {
  Scenario s = ScenarioFromJson(nlohmann::json::parse(R"({"name": "s",
      "targets": ["bare-metal"], "disk": {"size": "256m"},
      "jobs": [{"name": "j", "ioengine": "io_uring", "bs": "64m", "iodepth": 64}]})"),
                                "s.json");
  EXPECT_NO_THROW(CheckBufferMemory(s, "MemAvailable: 67108864 kB\n"));  // 64 GiB
  try {
    CheckBufferMemory(s, "MemAvailable: 4194304 kB\n");  // 4 GiB
    FAIL() << "accepted";
  } catch (const ScenarioError& e) {
    EXPECT_STREQ(e.what(),
                 "s.json: job \"j\" on bare-metal: bs 64m x iodepth 64 x numjobs 1 = 4g of IO "
                 "buffers, more than 50% of this host's MemAvailable (4g); the rest is the "
                 "kernel's and the page cache's: lower bs, iodepth or numjobs");
  }
}

// Issue 38: the mmap engine maps a size-0 job's whole region, which on a named backing is
// the backing's size, not disk.size's default.
TEST(BufferMemoryTest, AMmapJobOnANamedBackingMapsTheWholeBacking) {
  Scenario s = ScenarioFromJson(nlohmann::json::parse(R"({"name": "s",
      "targets": ["virtio-blk"], "machine": {"memory": "1g"},
      "disk": {"backing": "/srv/big.img"},
      "jobs": [{"name": "j", "ioengine": "mmap", "direct": false}]})"),
                                "s.json");
  const auto sized = [](uint64_t bytes) {
    return [bytes](const std::string& path) {
      EXPECT_EQ(path, "/srv/big.img");
      return bytes;
    };
  };
  EXPECT_NO_THROW(CheckBufferMemory(s, ""));  // disk.size, 64m
  EXPECT_NO_THROW(CheckBufferMemory(s, "", sized(400ull << 20)));
  try {
    CheckBufferMemory(s, "", sized(8ull << 30));
    FAIL() << "accepted";
  } catch (const ScenarioError& e) {
    EXPECT_NE(std::string(e.what()).find("mmap window 8g x numjobs 1"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("machine.memory (1g)"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace storbed
