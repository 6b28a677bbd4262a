#include "sampling/job_sampler.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "backend/child_process.h"
#include "backend/qmp_client.h"
#include "sampling/clock_sync.h"

namespace storbed {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;
using namespace std::chrono_literals;

constexpr uint64_t kMs = 1'000'000;

// Everything a JobSampler touches, scripted: each "tick" the test advances the clock and
// the counters, then calls SampleOnce().
struct World {
  uint64_t now = 1000 * kMs;
  uint64_t rd_ops = 0, rd_ns = 0, flushes = 0, inuse = 0, vcpu_ticks = 0, host_ios = 0,
           host_wms = 0;
  bool qmp_broken = false;

  json Blockstats() const {
    json stats = {{"rd_operations", rd_ops},
                  {"wr_operations", 0},
                  {"flush_operations", flushes},
                  {"rd_bytes", rd_ops * 4096},
                  {"wr_bytes", 0},
                  {"rd_merged", 0},
                  {"wr_merged", 0},
                  {"rd_total_time_ns", rd_ns},
                  {"wr_total_time_ns", 0},
                  {"flush_total_time_ns", 0},
                  {"timed_stats", json::array()}};
    return json::array({{{"device", ""},
                         {"node-name", "disk-d0"},
                         {"stats", stats},
                         {"qdev", "/machine/peripheral/dev-d0/virtio-backend"}}});
  }
  json Qmp(const std::string& cmd, const json& args) {
    if (qmp_broken) throw QmpConnectionError("QMP /run/qmp.sock closed while waiting for reply");
    if (cmd == "query-blockstats") return Blockstats();
    if (cmd == "x-query-virtio")
      return json::array(
          {{{"name", "virtio-blk"}, {"path", "/machine/peripheral/dev-d0/virtio-backend"}}});
    if (cmd == "x-query-virtio-status") return json{{"num-vqs", 1}};
    if (cmd == "x-query-virtio-queue-status")
      return json{{"inuse", inuse}, {"queue-index", args.at("queue")}};
    throw QmpError(cmd, "CommandNotFound", "no");
  }
  std::string Diskstats() const {
    return " 254 0 vda " + std::to_string(host_ios) + " 0 " + std::to_string(host_ios * 8) +
           " 0 0 0 0 0 0 0 " + std::to_string(host_wms) +
           " 0 0 0 0 0 0\n 7 0 loop0 1 0 1 0 0 0 0 0 0 0 0\n";
  }
};

class FakeThreads : public ThreadReader {
 public:
  explicit FakeThreads(World* w) : w_(w) {}
  std::vector<RawThread> ReadThreads(int pid) override {
    auto t = [](int tid, const std::string& comm, uint64_t ticks) {
      return RawThread{tid,
                       std::to_string(tid) + " (" + comm + ") S 1 1 1 0 -1 0 0 0 0 0 " +
                           std::to_string(ticks) + " 0 0 0 20 0 1 0 1",
                       comm + "\n"};
    };
    return {t(pid, "qemu-system-x86", 0), t(pid + 1, "CPU 0/KVM", w_->vcpu_ticks)};
  }

 private:
  World* w_;
};

class JobSamplerTest : public ::testing::Test {
 protected:
  std::unique_ptr<JobSampler> Make(Bus bus = Bus::VirtioBlk) {
    SamplerSource src{.qmp = [this](const std::string& c, const json& a) { return w_.Qmp(c, a); },
                      .qemu_pid = 500,
                      .device_id = "dev-d0",
                      .bus = bus,
                      .backing = "/var/tmp/backing.raw",
                      .block_counters = {},
                      .block_source = {}};
    JobSamplerOptions opt;
    opt.period = 1h;  // the thread never samples: the test drives every tick
    opt.threads = std::make_shared<FakeThreads>(&w_);
    opt.stat = [](const std::string&, std::string*) {
      return std::optional<DevNumber>(DevNumber{7, 0});
    };
    opt.sysfs_root = sysfs_.string();
    opt.read_diskstats = [this] { return w_.Diskstats(); };
    opt.now_ns = [this] { return w_.now; };
    opt.clk_tck = 100;
    return std::make_unique<JobSampler>(src, opt);
  }
  void SetUp() override {
    sysfs_ = std::filesystem::temp_directory_path() / ("storbed-js-" + std::to_string(getpid()));
    std::filesystem::remove_all(sysfs_);
    std::filesystem::create_directories(sysfs_ / "dev/block");
    std::filesystem::create_directories(sysfs_ /
                                        "devices/virtual/block/vda");  // no loop, no slaves
    std::filesystem::create_directory_symlink("../../devices/virtual/block/vda",
                                              sysfs_ / "dev/block/7:0");
  }
  void TearDown() override { std::filesystem::remove_all(sysfs_); }
  // 100 ms of QD2 at 1000 IOPS: 100 reads, each resident 2 ms.
  void Tick(JobSampler& s) {
    w_.now += 100 * kMs;
    w_.rd_ops += 100;
    w_.rd_ns += 200 * kMs;
    w_.flushes += 1;
    w_.inuse = 2;
    w_.vcpu_ticks += 5;  // 50 % of a CPU
    w_.host_ios += 100;
    w_.host_wms += 150;  // depth 1.5 at the host
    s.SampleOnce();
  }

  World w_;
  std::filesystem::path sysfs_;
};

TEST_F(JobSamplerTest, SummarizesEveryLayerOverTheWindow) {
  auto s = Make();
  s->Start();  // sample at t=1000 ms
  const uint64_t start = w_.now;
  for (int i = 0; i < 10; ++i) Tick(*s);
  const uint64_t end = w_.now;
  w_.now += 50 * kMs;
  s->Stop();  // one more sample after the window, idle
  HostLayers h = s->Summarize(start, end);
  ASSERT_TRUE(h.qemu_block.available) << h.qemu_block.reason;
  EXPECT_EQ(h.qemu_block.source, "query-blockstats dev-d0");
  EXPECT_DOUBLE_EQ(h.qemu_block.avg_depth, 2.0);
  EXPECT_DOUBLE_EQ(h.qemu_block.iops, 1000);
  EXPECT_DOUBLE_EQ(h.qemu_block.mean_latency_us, 2000);
  // Counters bracketing the window carry a bound from their span, never a 95% interval.
  EXPECT_TRUE(h.qemu_block.has_depth_bound);
  EXPECT_FALSE(h.qemu_block.has_depth_interval);
  EXPECT_THAT(h.qemu_block.bound_basis, HasSubstr(" s apart around the "));
  EXPECT_EQ(h.qemu_flushes, 10u);
  ASSERT_TRUE(h.virtqueue.available) << h.virtqueue.reason;
  // Point samples: 0 at the window's start (held 0.1 s), then 2 for 0.9 s.
  EXPECT_DOUBLE_EQ(h.virtqueue.avg_depth, 1.8);
  ASSERT_TRUE(h.host_device.available) << h.host_device.reason;
  EXPECT_EQ(h.host_device.source, "/proc/diskstats vda");
  EXPECT_DOUBLE_EQ(h.host_device.avg_depth, 1.5);
  EXPECT_TRUE(h.host_device.has_depth_bound);
  EXPECT_FALSE(h.host_device.has_depth_interval);
  EXPECT_DOUBLE_EQ(h.qemu_thread_cpu.at("vcpu").get<double>(), 50);
  EXPECT_DOUBLE_EQ(h.qemu_thread_cpu.at("main").get<double>(), 0);
  EXPECT_TRUE(h.warnings.empty());
  auto depth = std::find_if(h.timelines.begin(), h.timelines.end(),
                            [](const Timeline& t) { return t.name == "qemu.d0.depth"; });
  ASSERT_NE(depth, h.timelines.end());
  ASSERT_EQ(depth->t_s.size(), 10u);
  EXPECT_DOUBLE_EQ(depth->t_s.front(), 0.1);
  EXPECT_DOUBLE_EQ(depth->value.front(), 2.0);
  EXPECT_NO_THROW(json(h).dump());
}

TEST_F(JobSamplerTest, QmpFailureStopsOnlyTheQmpSamplers) {
  auto s = Make();
  s->Start();
  const uint64_t start = w_.now;
  Tick(*s);
  w_.qmp_broken = true;
  Tick(*s);
  Tick(*s);
  const uint64_t end = w_.now;
  s->Stop();
  auto warnings = s->Warnings();
  ASSERT_EQ(warnings.size(), 2u);
  EXPECT_THAT(warnings[0], HasSubstr("query-blockstats sampler stopped: QMP /run/qmp.sock closed"));
  EXPECT_THAT(warnings[1], HasSubstr("x-query-virtio-queue-status sampler stopped"));
  HostLayers h = s->Summarize(start, end);
  // The block layer only has samples up to the failure: the bracket falls short of the window.
  EXPECT_TRUE(h.host_device.available) << h.host_device.reason;
  EXPECT_DOUBLE_EQ(h.qemu_thread_cpu.at("vcpu").get<double>(), 50);
  EXPECT_EQ(h.warnings.size(), 2u);
}

TEST_F(JobSamplerTest, NvmeHasNoVirtqueueRung) {
  auto s = Make(Bus::Nvme);
  s->Start();
  const uint64_t start = w_.now;
  Tick(*s);
  s->Stop();
  HostLayers h = s->Summarize(start, w_.now);
  EXPECT_FALSE(h.virtqueue.available);
  EXPECT_EQ(h.virtqueue.reason, kNvmeNoVirtqueue);
  EXPECT_TRUE(h.qemu_block.available);
}

TEST_F(JobSamplerTest, TooFewSamplesIsAReason) {
  auto s = Make();
  HostLayers h = s->Summarize(0, 1);
  EXPECT_FALSE(h.qemu_block.available);
  EXPECT_FALSE(h.host_device.available);
  EXPECT_FALSE(h.virtqueue.available);
}

// The libvirt backend's path: counters from a function (libvirt's bulk stats), not from
// QMP query-blockstats, which must then not be asked at all; the ladder names the source.
TEST_F(JobSamplerTest, BlockCountersFromTheMachineReplaceQueryBlockstats) {
  int blockstats_calls = 0;
  SamplerSource src{.qmp =
                        [this, &blockstats_calls](const std::string& c, const json& a) {
                          if (c == "query-blockstats") ++blockstats_calls;
                          return w_.Qmp(c, a);
                        },
                    .qemu_pid = -1,
                    .device_id = "ua-d0",
                    .bus = Bus::Nvme,
                    .backing = "",
                    .block_counters =
                        [this] {
                          BlockCounters c;
                          c.device = "vda";
                          c.rd_operations = w_.rd_ops;
                          c.rd_bytes = w_.rd_ops * 4096;
                          c.rd_total_time_ns = w_.rd_ns;
                          c.flush_operations = w_.flushes;
                          return c;
                        },
                    .block_source = "libvirt block stats vda (virDomainListGetStats)"};
  JobSamplerOptions opt;
  opt.period = 1h;
  opt.now_ns = [this] { return w_.now; };
  JobSampler s(src, opt);
  s.Start();
  const uint64_t start = w_.now;
  for (int i = 0; i < 5; ++i) Tick(s);
  const uint64_t end = w_.now;
  s.Stop();
  HostLayers h = s.Summarize(start, end);
  ASSERT_TRUE(h.qemu_block.available) << h.qemu_block.reason;
  EXPECT_EQ(h.qemu_block.source, "libvirt block stats vda (virDomainListGetStats)");
  EXPECT_DOUBLE_EQ(h.qemu_block.avg_depth, 2.0);
  EXPECT_DOUBLE_EQ(h.qemu_block.iops, 1000);
  EXPECT_EQ(h.qemu_flushes, 5u);
  EXPECT_EQ(blockstats_calls, 0);
  EXPECT_TRUE(h.warnings.empty());
}

// The table JobSampler runs: every sampler file registered itself (a static archive
// would have dropped the unreferenced ones), in the order that keeps outputs stable.
TEST(HostSamplersTest, EverySamplerRegistersItselfInOrder) {
  std::vector<std::string> names;
  for (const HostSamplerEntry& e : HostSamplers()) names.push_back(e.name);
  EXPECT_THAT(names, ::testing::ElementsAre("qemu-block", "virtqueue", "qemu-threads",
                                            "host-device", "host-cpu"));
}

TEST(HostSamplersTest, ANameRegisteredTwiceIsAnError) {
  const size_t before = HostSamplers().size();
  EXPECT_THROW(RegisterHostSampler({.name = "virtqueue", .order = 99, .make = nullptr}),
               std::logic_error);
  EXPECT_EQ(HostSamplers().size(), before);
}

TEST(HostSamplersTest, FiguresSitBesideQemuThreadCpuInTheJson) {
  HostLayers h;
  h.qemu_thread_cpu["vcpu"] = 50.0;
  h.figures["host_cpu"] = {{"all", {{"user", 12.5}}}};
  const json j = h;
  EXPECT_DOUBLE_EQ(j.at("qemu_thread_cpu").at("vcpu").get<double>(), 50);
  EXPECT_DOUBLE_EQ(j.at("host_cpu").at("all").at("user").get<double>(), 12.5);
  EXPECT_FALSE(j.contains("figures"));
}

TEST(SampleWindowTest, BracketTakesTheLastSampleBeforeAndTheFirstAfter) {
  struct S {
    uint64_t t_ns;
  };
  const std::vector<S> v = {{0}, {10}, {20}, {30}, {40}};
  EXPECT_EQ(Bracket(v, 15, 25), std::make_optional(std::make_pair<size_t, size_t>(1, 3)));
  EXPECT_EQ(Bracket(v, 10, 30), std::make_optional(std::make_pair<size_t, size_t>(1, 3)));
  // Beyond the samples: the first and the last.
  EXPECT_EQ(Bracket(v, 50, 60), std::nullopt);
  EXPECT_EQ(Bracket(v, 0, 100), std::make_optional(std::make_pair<size_t, size_t>(0, 4)));
  EXPECT_EQ(Bracket(std::vector<S>{{5}}, 0, 10), std::nullopt);
}

// A real QEMU 7.2 in -S state: the reply shapes and QOM paths this code assumes.
TEST(JobSamplerRealQemuTest, SamplesARealQemu) {
  if (system("command -v qemu-system-x86_64 >/dev/null 2>&1") != 0) {
    GTEST_SKIP() << "qemu-system-x86_64 is not installed";
  }
  const std::string dir = "/var/tmp/storbed-js-qemu-" + std::to_string(getpid());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  for (const char* f : {"/d0.raw", "/d1.raw"}) {
    std::ofstream(dir + f).close();
    std::filesystem::resize_file(dir + f, 1 << 20);
  }
  {
    ChildProcess qemu =
        ChildProcess::Start({"qemu-system-x86_64",
                             "-name",
                             "storbed-sampling-test,debug-threads=on",
                             "-machine",
                             "q35,accel=tcg",
                             "-nodefaults",
                             "-display",
                             "none",
                             "-S",
                             "-qmp",
                             "unix:" + dir + "/qmp.sock,server=on,wait=off",
                             "-object",
                             "iothread,id=io-d0",
                             "-blockdev",
                             "driver=file,node-name=file-d0,filename=" + dir + "/d0.raw",
                             "-blockdev",
                             "driver=raw,node-name=disk-d0,file=file-d0",
                             "-device",
                             "virtio-blk-pci,drive=disk-d0,id=dev-d0,num-queues=2,iothread=io-d0",
                             "-blockdev",
                             "driver=file,node-name=file-d1,filename=" + dir + "/d1.raw",
                             "-blockdev",
                             "driver=raw,node-name=disk-d1,file=file-d1",
                             "-device",
                             "nvme,drive=disk-d1,id=dev-d1,serial=d1"},
                            dir + "/qemu.log");
    QmpClient qmp = QmpClient::Connect(dir + "/qmp.sock", Clock::now() + 10s);
    auto exec = [&qmp](const std::string& c, const json& a) { return qmp.Execute(c, a, 2s); };
    for (const auto& [id, bus] :
         {std::pair{"dev-d0", Bus::VirtioBlk}, std::pair{"dev-d1", Bus::Nvme}}) {
      JobSamplerOptions opt;
      opt.period = 100ms;
      opt.fast_period = 10ms;
      JobSampler s(SamplerSource{.qmp = exec,
                                 .qemu_pid = qemu.Pid(),
                                 .device_id = id,
                                 .bus = bus,
                                 .backing = dir + "/d0.raw",
                                 .block_counters = {},
                                 .block_source = {}},
                   opt);
      s.Start();
      const uint64_t start = HostMonotonicNs();
      // 600 ms: on a loaded 2-core host a QMP round trip can take tens of ms, and a
      // 200 ms window then held too few fast samples to tell the two rates apart.
      std::this_thread::sleep_for(600ms);
      const uint64_t end = HostMonotonicNs();
      s.Stop();
      HostLayers h = s.Summarize(start, end);
      EXPECT_TRUE(h.qemu_block.available) << id << ": " << h.qemu_block.reason;
      EXPECT_EQ(h.qemu_block.iops, 0) << id;
      EXPECT_EQ(h.qemu_flushes, 0u) << id;
      if (bus == Bus::VirtioBlk) {
        EXPECT_TRUE(h.virtqueue.available) << h.virtqueue.reason;
        EXPECT_EQ(h.virtqueue.avg_depth, 0);
        // The virtqueue is a fast sampler: many more of its point samples than of the
        // counter samplers' in the same 600 ms (ideally 60 against 6).
        size_t vq = 0, qemu = 0;
        for (const Timeline& t : h.timelines) {
          if (t.name == "virtqueue.d0.inuse") vq = t.t_s.size();
          if (t.name == "qemu.d0.depth") qemu = t.t_s.size();
        }
        EXPECT_GT(vq, 2 * qemu + 2) << vq << " virtqueue samples, " << qemu << " QEMU block";
        EXPECT_TRUE(h.figures.contains("virtqueue_sampling")) << h.figures.dump();
      } else {
        EXPECT_EQ(h.virtqueue.reason, kNvmeNoVirtqueue);
      }
      EXPECT_TRUE(h.qemu_thread_cpu.contains("vcpu")) << h.qemu_thread_cpu.dump();
      EXPECT_TRUE(s.Warnings().empty()) << s.Warnings().front();
      for (const auto& w : h.warnings) ADD_FAILURE() << w;
      if (!h.host_device.available) {
        EXPECT_THAT(h.host_device.reason, HasSubstr("no device"));
      }
    }
    qemu.Terminate(5s);
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace storbed
