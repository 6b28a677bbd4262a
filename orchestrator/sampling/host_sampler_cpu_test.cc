#include "sampling/host_sampler_cpu.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "sampling/job_sampler.h"
#include "sampling/qemu_threads.h"

namespace storbed {
namespace host_sampler_cpu_test {  // named, not anonymous: a unity build joins files

using nlohmann::json;
using ::testing::HasSubstr;
using namespace std::chrono_literals;

// user nice system idle iowait irq softirq steal guest guest_nice
const char* kBefore =
    "cpu  100 0 100 800 0 0 0 0 0 0\n"
    "cpu0 50 0 50 400 0 0 0 0 0 0\n"
    "cpu1 50 0 50 400 0 0 0 0 0 0\n"
    "intr 12345 0 0\n"
    "ctxt 999\n";
const char* kAfter =
    "cpu  160 0 130 840 40 10 10 10 0 0\n"
    "cpu0 100 0 75 425 0 0 0 0 0 0\n"
    "cpu1 60 0 55 415 40 10 10 10 0 0\n"
    "intr 12400 0 0\n";

double Pct(const json& j, const char* cpu, const char* metric) {
  return j.at(cpu).at(metric).get<double>();
}

TEST(HostCpuTest, TwoReadingsGiveEachMetricsShareOfTheWindowsTicks) {
  const json j = CpuPercent(ParseProcStatCpus(kBefore), ParseProcStatCpus(kAfter));
  // cpu0: 50 user + 25 system + 25 idle ticks.
  EXPECT_DOUBLE_EQ(Pct(j, "cpu0", "user"), 50);
  EXPECT_DOUBLE_EQ(Pct(j, "cpu0", "system"), 25);
  EXPECT_DOUBLE_EQ(Pct(j, "cpu0", "idle"), 25);
  EXPECT_DOUBLE_EQ(Pct(j, "cpu0", "iowait"), 0);
  // cpu1: 10 user, 5 system, 15 idle, 40 iowait, 10 each irq, softirq, steal = 100 ticks.
  EXPECT_DOUBLE_EQ(Pct(j, "cpu1", "iowait"), 40);
  EXPECT_DOUBLE_EQ(Pct(j, "cpu1", "irq"), 10);
  EXPECT_DOUBLE_EQ(Pct(j, "cpu1", "softirq"), 10);
  EXPECT_DOUBLE_EQ(Pct(j, "cpu1", "steal"), 10);
  // all: 60 user, 30 system, 40 idle, 40 iowait, 10+10+10 of 200 ticks.
  EXPECT_DOUBLE_EQ(Pct(j, "all", "user"), 30);
  EXPECT_DOUBLE_EQ(Pct(j, "all", "iowait"), 20);
  double sum = 0;
  for (const char* m : kCpuMetrics) sum += Pct(j, "all", m);
  EXPECT_DOUBLE_EQ(sum, 100);
}

TEST(HostCpuTest, ACpuGoingOfflineIsLeftOutAndNamed) {
  // Linux lists online CPUs only; the "cpu" line sums every possible CPU, so it stays.
  const std::string after = "cpu  160 0 130 840 40 10 10 10 0 0\ncpu0 100 0 75 425 0 0 0 0 0 0\n";
  std::vector<std::string> left_out;
  const json j = CpuPercent(ParseProcStatCpus(kBefore), ParseProcStatCpus(after), &left_out);
  EXPECT_TRUE(j.contains("cpu0"));
  EXPECT_TRUE(j.contains("all"));
  EXPECT_FALSE(j.contains("cpu1"));
  EXPECT_THAT(left_out, ::testing::ElementsAre("cpu1"));
}

TEST(HostCpuTest, ACounterSteppingBackCountsAsNone) {
  // iowait is not monotonic on NO_HZ kernels.
  const json j = CpuPercent(ParseProcStatCpus("cpu0 0 0 0 0 50 0 0 0\n"),
                            ParseProcStatCpus("cpu0 10 0 0 10 40 0 0 0\n"));
  EXPECT_DOUBLE_EQ(Pct(j, "cpu0", "iowait"), 0);
  EXPECT_DOUBLE_EQ(Pct(j, "cpu0", "user"), 50);
}

TEST(HostCpuTest, ACpuWithoutTicksIsLeftOutSilently) {
  std::vector<std::string> left_out;
  const json j = CpuPercent(ParseProcStatCpus(kBefore), ParseProcStatCpus(kBefore), &left_out);
  EXPECT_TRUE(j.empty());
  EXPECT_TRUE(left_out.empty());
}

TEST(HostCpuTest, AMalformedLineIsKeptAsTextNotThrown) {
  const ProcStatCpus s = ParseProcStatCpus(
      "cpu  1 2 3 4 5 6 7 8\ncpu0 1 2 x 4 5 6 7 8\ncpu1 1 2 3\ncpuX 1 2 3 4 5 6 7 8\n"
      "cpu2 1 2 3 4 5 6 7 8 9 10\n");
  ASSERT_EQ(s.cpus.size(), 2u);
  EXPECT_EQ(s.cpus[0].cpu, kAllCpus);
  EXPECT_EQ(s.cpus[1].cpu, 2);
  EXPECT_EQ(s.cpus[1].ticks[7], 8u);
  EXPECT_THAT(s.malformed,
              ::testing::ElementsAre("cpu0 1 2 x 4 5 6 7 8", "cpu1 1 2 3", "cpuX 1 2 3 4 5 6 7 8"));
}

TEST(HostCpuTest, NoCpuLineAtAllIsAParseError) {
  EXPECT_THROW(ParseProcStatCpus("intr 1 2 3\n"), HostProcParseError);
  EXPECT_THROW(ParseProcStatCpus(""), HostProcParseError);
}

// The sampler inside JobSampler, on a fixture proc root rewritten between samples.
class HostCpuSamplerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = std::filesystem::temp_directory_path() / ("storbed-cpu-" + std::to_string(getpid()));
    std::filesystem::remove_all(root_);
    std::filesystem::create_directories(root_);
  }
  void TearDown() override { std::filesystem::remove_all(root_); }
  void WriteStat(const std::string& text) { std::ofstream(root_ / "stat") << text; }
  std::unique_ptr<JobSampler> Make() {
    JobSamplerOptions opt;
    opt.period = 1h;  // the test drives every sample
    opt.proc_root = root_.string();
    opt.now_ns = [this] { return now_; };
    return std::make_unique<JobSampler>(SamplerSource{}, opt);
  }
  // The next reading, 100 ms later.
  void Tick(JobSampler& s, const std::string& text) {
    now_ += 100'000'000;
    WriteStat(text);
    s.SampleOnce();
  }
  const Timeline* Find(const HostLayers& h, const std::string& name) {
    for (const Timeline& t : h.timelines)
      if (t.name == name) return &t;
    return nullptr;
  }

  std::filesystem::path root_;
  uint64_t now_ = 1'000'000'000;
};

TEST_F(HostCpuSamplerTest, TheWindowGivesHostCpuAndTimelines) {
  WriteStat(kBefore);
  auto s = Make();
  s->Start();
  const uint64_t start = now_;
  Tick(*s,
       "cpu  130 0 115 820 20 5 5 5 0 0\ncpu0 75 0 60 415 0 0 0 0\n"
       "cpu1 55 0 55 405 20 5 5 5 0 0\n");
  Tick(*s, kAfter);
  s->Stop();
  HostLayers h = s->Summarize(start, now_);
  EXPECT_TRUE(h.warnings.empty()) << h.warnings.front();
  const json j = h;
  EXPECT_DOUBLE_EQ(Pct(j.at("host_cpu"), "cpu1", "iowait"), 40);
  EXPECT_DOUBLE_EQ(Pct(j.at("host_cpu"), "all", "user"), 30);
  const Timeline* all_user = Find(h, "host.cpu.user");
  ASSERT_NE(all_user, nullptr);
  EXPECT_EQ(all_user->unit, "%");
  EXPECT_THAT(all_user->t_s, ::testing::ElementsAre(0.1, 0.2));
  const Timeline* iowait = Find(h, "host.cpu1.iowait");
  ASSERT_NE(iowait, nullptr);
  EXPECT_DOUBLE_EQ(iowait->value.at(0), 40);      // 20 of 50 ticks
  EXPECT_EQ(Find(h, "host.cpu0.idle"), nullptr);  // idle and nice: in host_cpu only
}

TEST_F(HostCpuSamplerTest, OfflineCpusAndMalformedLinesAreWarningsNotCrashes) {
  WriteStat(kBefore);
  auto s = Make();
  s->Start();
  const uint64_t start = now_;
  Tick(*s, "cpu  130 0 115 820 20 5 5 5 0 0\ncpu0 75 0 60 garbage\n");
  Tick(*s, "cpu  160 0 130 840 40 10 10 10 0 0\ncpu0 100 0 75 425 0 0 0 0 0 0\n");
  const uint64_t end = now_;
  s->Stop();
  HostLayers h = s->Summarize(start, end);
  EXPECT_TRUE(s->Warnings().empty());  // the sampler went on
  ASSERT_EQ(h.warnings.size(), 2u);
  EXPECT_THAT(h.warnings[0], HasSubstr("host cpu1 is not in both"));
  EXPECT_THAT(h.warnings[1], HasSubstr("malformed line skipped: 'cpu0 75 0 60 garbage'"));
  const json j = h;
  EXPECT_TRUE(j.at("host_cpu").contains("cpu0"));
  EXPECT_FALSE(j.at("host_cpu").contains("cpu1"));
}

TEST_F(HostCpuSamplerTest, AnUnreadableStatStopsOnlyThisSampler) {
  auto s = Make();  // no stat file under the root
  s->Start();
  s->Stop();
  ASSERT_EQ(s->Warnings().size(), 1u);
  EXPECT_THAT(s->Warnings()[0], HasSubstr("host /proc/stat sampler stopped: cannot read"));
  HostLayers h = s->Summarize(0, 1);
  EXPECT_FALSE(json(h).contains("host_cpu"));
  EXPECT_EQ(h.qemu_block.reason, "no QMP connection");
}

}  // namespace host_sampler_cpu_test
}  // namespace storbed
