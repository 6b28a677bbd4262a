// GuestSampler driven by hand over fixture files (no thread, no real /proc), then once
// with its thread over the same fixtures to check the schedule.
#include "guest_sampler.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "engine.h"
#include "fake_text_source_for_test.h"

namespace storbed {
namespace {

constexpr uint64_t kMs = 1000000;

std::string Diskstats(uint64_t reads, uint64_t weighted_ms) {
  // 4 KiB a read: 8 sectors.
  return "   7       0 loop0 " + std::to_string(reads) + " 0 " + std::to_string(reads * 8) +
         " 0 0 0 0 0 0 0 " + std::to_string(weighted_ms) + " 0 0 0 0 0 0\n" +
         " 254       0 vda 1 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n";
}
std::string Meminfo(uint64_t cached_kb) {
  return "Buffers: 1024 kB\nCached: " + std::to_string(cached_kb) +
         " kB\nDirty: 0 kB\nWriteback: 512 kB\n";
}
std::string Vmstat(uint64_t pgpgin) {
  return "pgpgin " + std::to_string(pgpgin) + "\npgpgout 0\npgmajfault 0\n";
}
std::string Stat(uint64_t iowait, uint64_t idle) {
  return "cpu  0 0 0 0 0 0 0 0\ncpu0 0 0 0 " + std::to_string(idle) + " " + std::to_string(iowait) +
         " 0 0 0\n";
}

class GuestSamplerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fs_.Set("/sys/class/block/loop0/inflight", {"0 0\n", "3 1\n", "8 0\n"});
    fs_.Set("/proc/diskstats", {Diskstats(0, 0), Diskstats(1000, 400)});
    fs_.Set("/proc/meminfo", {Meminfo(1024), Meminfo(2048)});
    fs_.Set("/proc/vmstat", {Vmstat(0), Vmstat(4096)});
    fs_.Set("/proc/stat", {Stat(0, 0), Stat(5, 5)});
  }
  SamplerConfig Config() const { return {.device = "loop0", .fast_ms = 10, .slow_ms = 100}; }

  static const Timeline* Find(const std::vector<Timeline>& ts, const std::string& name) {
    for (const auto& t : ts)
      if (t.name == name) return &t;
    return nullptr;
  }

  FakeTextSource fs_;
};

TEST_F(GuestSamplerTest, SlowProbesGiveRatesAndLittlesLawDepth) {
  GuestSampler s(Config(), fs_);
  const uint64_t t0 = 1000 * kMs;
  s.Baseline(t0);
  s.SampleFast(t0 + 10 * kMs);
  s.SampleFast(t0 + 20 * kMs);
  s.SampleSlow(t0 + 100 * kMs);
  EXPECT_TRUE(s.warnings().empty());
  const auto ts = s.Timelines(t0);

  const Timeline* inflight = Find(ts, "guest.loop0.inflight");
  ASSERT_NE(inflight, nullptr);
  EXPECT_EQ(inflight->unit, "requests");
  EXPECT_EQ(inflight->value, (std::vector<double>{4, 8}));  // baseline records nothing
  EXPECT_NEAR(inflight->t_s[0], 0.010, 1e-9);

  // 400 ms of queue residence in a 100 ms interval: depth 4; 1000 IOs: 10000 IO/s.
  const Timeline* depth = Find(ts, "guest.loop0.depth");
  ASSERT_NE(depth, nullptr);
  ASSERT_EQ(depth->value.size(), 1u);
  EXPECT_NEAR(depth->value[0], 4.0, 1e-9);
  EXPECT_NEAR(depth->t_s[0], 0.1, 1e-9);
  EXPECT_NEAR(Find(ts, "guest.loop0.iops")->value.at(0), 10000, 1e-6);
  const Timeline* request = Find(ts, "guest.loop0.request_kib");
  ASSERT_NE(request, nullptr);
  EXPECT_EQ(request->unit, "KiB");
  EXPECT_NEAR(request->value.at(0), 4.0, 1e-9);
  EXPECT_NEAR(Find(ts, "guest.meminfo.cached")->value.at(0), 2.0, 1e-9);
  EXPECT_NEAR(Find(ts, "guest.meminfo.writeback")->value.at(0), 0.5, 1e-9);
  EXPECT_NEAR(Find(ts, "guest.vmstat.pgpgin")->value.at(0), 40960, 1e-6);  // KiB/s
  EXPECT_NEAR(Find(ts, "guest.cpu0.iowait")->value.at(0), 50, 1e-9);
  EXPECT_EQ(Find(ts, "guest.vmstat.workingset_refault_file"), nullptr);  // not in fixture
}

TEST_F(GuestSamplerTest, MalformedFileStopsOnlyItsProbeWithAWarning) {
  fs_.Set("/proc/meminfo", {Meminfo(1024), "Buffers: 1024 kB\nCach"});  // truncated
  fs_.Set("/sys/class/block/loop0/inflight", {"0 0\n", "garbage\n", "1 1\n"});
  GuestSampler s(Config(), fs_);
  s.Baseline(0);
  s.SampleFast(10 * kMs);
  s.SampleFast(20 * kMs);  // the inflight probe stays stopped
  s.SampleSlow(100 * kMs);
  s.SampleSlow(200 * kMs);
  ASSERT_EQ(s.warnings().size(), 2u);
  EXPECT_NE(s.warnings()[0].find("sampler 'inflight' stopped"), std::string::npos);
  EXPECT_NE(s.warnings()[1].find("sampler 'meminfo' stopped: /proc/meminfo"), std::string::npos)
      << s.warnings()[1];
  const auto ts = s.Timelines(0);
  EXPECT_EQ(Find(ts, "guest.loop0.inflight"), nullptr);
  EXPECT_EQ(Find(ts, "guest.meminfo.cached"), nullptr);
  EXPECT_EQ(Find(ts, "guest.loop0.depth")->value.size(), 2u);  // the others go on
}

TEST_F(GuestSamplerTest, MissingFileOrDeviceTurnsProbesOff) {
  FakeTextSource empty;
  GuestSampler s(Config(), empty);
  EXPECT_EQ(s.warnings().size(), 5u);
  EXPECT_NE(s.warnings()[0].find("sampler 'inflight' off: cannot open"), std::string::npos);
  GuestSampler no_device({.device = std::nullopt, .fast_ms = 10, .slow_ms = 100}, fs_);
  no_device.Baseline(0);
  no_device.SampleFast(10 * kMs);
  no_device.SampleSlow(100 * kMs);
  EXPECT_TRUE(no_device.warnings().empty());
  const auto ts = no_device.Timelines(0);
  EXPECT_EQ(Find(ts, "guest.loop0.depth"), nullptr);
  EXPECT_NE(Find(ts, "guest.meminfo.dirty"), nullptr);
}

TEST_F(GuestSamplerTest, ThreadSamplesAtThePeriodWithMonotonicTimes) {
  GuestSampler s({.device = "loop0", .fast_ms = 5, .slow_ms = 25}, fs_);
  const uint64_t start = MonotonicNs();
  s.Start();
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  s.Stop();
  const auto ts = s.Timelines(start);
  const Timeline* inflight = Find(ts, "guest.loop0.inflight");
  const Timeline* depth = Find(ts, "guest.loop0.depth");
  ASSERT_NE(inflight, nullptr);
  ASSERT_NE(depth, nullptr);
  // 200 ms at 5 ms and 25 ms; a loaded machine (a parallel build, ctest -j) may skip many
  // ticks, never add them: the lower bounds only say the thread ran.
  EXPECT_LE(inflight->t_s.size(), 41u);
  EXPECT_GE(inflight->t_s.size(), 4u);
  EXPECT_LE(depth->t_s.size(), 9u);
  EXPECT_GE(depth->t_s.size(), 1u);
  for (const Timeline* t : {inflight, depth}) {
    EXPECT_TRUE(std::is_sorted(t->t_s.begin(), t->t_s.end()));
    EXPECT_GT(t->t_s.front(), 0.0);
    EXPECT_LT(t->t_s.back(), 0.5);
  }
  // Ticks sit on the period's grid, so a late one is followed by a shorter gap: only the
  // order and the counts above are certain under load.
  EXPECT_GT(inflight->t_s[1], inflight->t_s[0]);
}

TEST(BlkMqShape, CountsQueuesAndReadsTags) {
  FakeTextSource fs;
  fs.SetDir("/sys/class/block/vda/mq", {"0", "1", "2", "3"});
  fs.Set("/sys/class/block/vda/mq/0/nr_tags", {"256\n"});
  const BlkMqShape vda = ReadBlkMqShape("vda", fs);
  EXPECT_EQ(vda.nr_hw_queues, 4u);
  EXPECT_EQ(vda.nr_tags, 256u);
  // A partition: its disk's mq/ through "..".
  fs.SetDir("/sys/class/block/vda1/../mq", {"0"});
  fs.Set("/sys/class/block/vda1/../mq/0/nr_tags", {"bogus\n"});
  const BlkMqShape part = ReadBlkMqShape("vda1", fs);
  EXPECT_EQ(part.nr_hw_queues, 1u);
  EXPECT_EQ(part.nr_tags, 0u);  // unreadable: unknown
  EXPECT_EQ(ReadBlkMqShape("sr0", fs).nr_hw_queues, 0u);
}

}  // namespace
}  // namespace storbed
