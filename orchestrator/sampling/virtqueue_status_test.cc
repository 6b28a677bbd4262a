#include "sampling/virtqueue_status.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>

#include "backend/qmp_client.h"

namespace storbed {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

const std::string kPath = "/machine/peripheral/dev-d0/virtio-backend";

// Answers like QEMU 7.2.22 did for virtio-blk-pci id=dev-d0,num-queues=2 beside an nvme.
class FakeQmp {
 public:
  std::vector<std::pair<std::string, json>> calls;
  bool has_virtio_commands = true;
  std::vector<uint64_t> inuse = {3, 4};

  QmpExecutor Executor() {
    return [this](const std::string& cmd, const json& args) { return Run(cmd, args); };
  }

 private:
  json Run(const std::string& cmd, const json& args) {
    calls.emplace_back(cmd, args);
    if (!has_virtio_commands && cmd.rfind("x-query-virtio", 0) == 0) {
      throw QmpError(cmd, "CommandNotFound", "The command " + cmd + " has not been found");
    }
    if (cmd == "x-query-virtio") {
      return json::array(
          {{{"name", "virtio-serial"}, {"path", "/machine/peripheral/vser0/virtio-backend"}},
           {{"name", "virtio-blk"}, {"path", kPath}}});
    }
    if (cmd == "x-query-virtio-status") return json{{"name", "virtio-blk"}, {"num-vqs", 2}};
    if (cmd == "x-query-virtio-queue-status") {
      const int q = args.at("queue").get<int>();
      if (q >= static_cast<int>(inuse.size())) {
        throw QmpError(cmd, "GenericError", "Invalid virtqueue number " + std::to_string(q));
      }
      return json{{"signalled-used", 0},
                  {"inuse", inuse[q]},
                  {"name", "virtio-blk"},
                  {"queue-index", q},
                  {"vring-num", 256}};
    }
    throw QmpError(cmd, "CommandNotFound", "unexpected");
  }
};

TEST(VirtqueueStatusTest, ResolvesPathAndQueueCount) {
  FakeQmp qmp;
  VirtqueueTarget t = ResolveVirtqueues(qmp.Executor(), "dev-d0", Bus::VirtioBlk);
  ASSERT_TRUE(t.available) << t.reason;
  EXPECT_EQ(t.path, kPath);
  EXPECT_EQ(t.num_queues, 2);
  EXPECT_EQ(qmp.calls.at(1).second, (json{{"path", kPath}}));
}

TEST(VirtqueueStatusTest, SumsInuseOverQueues) {
  FakeQmp qmp;
  VirtqueueTarget t = ResolveVirtqueues(qmp.Executor(), "dev-d0", Bus::VirtioBlk);
  qmp.calls.clear();
  VirtqueueSample s = SampleVirtqueues(qmp.Executor(), t);
  EXPECT_EQ(s.inuse_total, 7u);
  EXPECT_EQ(s.inuse_per_queue, (std::vector<uint64_t>{3, 4}));
  ASSERT_EQ(qmp.calls.size(), 2u);
  EXPECT_EQ(qmp.calls[1].first, "x-query-virtio-queue-status");
  EXPECT_EQ(qmp.calls[1].second, (json{{"path", kPath}, {"queue", 1}}));
}

TEST(VirtqueueStatusTest, NvmeIsNotAvailableWithoutAskingQemu) {
  FakeQmp qmp;
  VirtqueueTarget t = ResolveVirtqueues(qmp.Executor(), "dev-d1", Bus::Nvme);
  EXPECT_FALSE(t.available);
  EXPECT_EQ(t.reason, "NVMe is not a virtio device: QEMU exposes no submission-queue depth");
  EXPECT_TRUE(qmp.calls.empty());
  LayerStats l = VirtqueueLayer(t, {}, {}, "x");
  EXPECT_FALSE(l.available);
  EXPECT_EQ(l.reason, t.reason);
}

TEST(VirtqueueStatusTest, MissingCommandsAreNotAvailable) {
  FakeQmp qmp;
  qmp.has_virtio_commands = false;
  VirtqueueTarget t = ResolveVirtqueues(qmp.Executor(), "dev-d0", Bus::VirtioBlk);
  EXPECT_FALSE(t.available);
  EXPECT_THAT(t.reason, HasSubstr("this QEMU has no x-query-virtio"));
}

TEST(VirtqueueStatusTest, UnknownDeviceIsNotAvailable) {
  FakeQmp qmp;
  VirtqueueTarget t = ResolveVirtqueues(qmp.Executor(), "dev-d9", Bus::VirtioBlk);
  EXPECT_FALSE(t.available);
  EXPECT_THAT(t.reason, HasSubstr("/machine/peripheral/dev-d9/virtio-backend"));
}

TEST(VirtqueueStatusTest, MalformedRepliesAreTypedErrors) {
  EXPECT_EQ(ParseQueueInuse(json{{"inuse", 5}}), 5u);
  try {
    ParseQueueInuse(json{{"used-idx", 5}});
    FAIL();
  } catch (const VirtqueueError& e) {
    EXPECT_EQ(e.raw(), R"({"used-idx":5})");
  }
  EXPECT_THROW(ParseQueueInuse(json{{"inuse", "5"}}), VirtqueueError);
  EXPECT_THROW(ParseQueueInuse(json::array()), VirtqueueError);
  QmpExecutor bad = [](const std::string&, const json&) { return json{{"x", 1}}; };
  EXPECT_THROW(ResolveVirtqueues(bad, "dev-d0", Bus::VirtioBlk), VirtqueueError);
}

TEST(VirtqueueStatusTest, LayerIsTimeWeightedMeanOfSamples) {
  VirtqueueTarget t{.available = true, .reason = "", .path = kPath, .num_queues = 1};
  // 2 held for 0.1 s then 4 held for 0.3 s: (0.2 + 1.2) / 0.4 = 3.5.
  LayerStats l =
      VirtqueueLayer(t, {0.0, 0.1, 0.4}, {2, 4, 9}, "x-query-virtio-queue-status dev-d0");
  ASSERT_TRUE(l.available);
  EXPECT_EQ(l.layer, kLayerVirtqueue);
  EXPECT_DOUBLE_EQ(l.avg_depth, 3.5);
  EXPECT_FALSE(l.has_iops);
  EXPECT_FALSE(VirtqueueLayer(t, {}, {}, "x").available);
}

TEST(VirtqueueStatusTest, LayerCarriesSampleCountIntervalAndDistribution) {
  VirtqueueTarget t;
  t.available = true;
  t.num_queues = 1;
  // 200 samples 10 ms apart of a count that is 0 or 1 with little memory: an interval.
  std::vector<double> ts, inuse;
  uint32_t x = 1;
  for (int i = 0; i < 200; ++i) {
    ts.push_back(0.01 * i);
    x = x * 1103515245u + 12345u;  // a fixed pseudo-random sequence
    inuse.push_back((x >> 16) % 10 < 3 ? 1 : 0);
  }
  const LayerStats l = VirtqueueLayer(t, ts, inuse, "x");
  ASSERT_TRUE(l.has_depth_interval) << l.interval_refused;
  EXPECT_FALSE(l.has_depth_bound);
  EXPECT_EQ(l.depth_samples, 200u);
  EXPECT_GT(l.depth_ci95, 0.03);
  EXPECT_LT(l.depth_ci95, 0.2);
  EXPECT_THAT(l.interval_basis, HasSubstr("200 point samples"));
  ASSERT_TRUE(l.inflight.available);
  EXPECT_EQ(l.inflight.max, 1);
  EXPECT_EQ(l.inflight.samples, 200u);
}

// The issue's rung: 20 samples of 0 or 1 in two stretches of three ones. Regression: it
// carried 0.3 +/- 0.30 as a 95% interval from 10 batch means of two samples each.
TEST(VirtqueueStatusTest, FewAlikeSamplesGetNoIntervalAndTheRungSaysWhy) {
  VirtqueueTarget t;
  t.available = true;
  t.num_queues = 1;
  std::vector<double> ts, inuse;
  for (int i = 0; i < 20; ++i) {
    ts.push_back(0.01 * i);
    inuse.push_back(i % 10 < 3 ? 1 : 0);
  }
  const LayerStats l = VirtqueueLayer(t, ts, inuse, "x");
  EXPECT_FALSE(l.has_depth_interval);
  EXPECT_EQ(l.depth_samples, 20u);
  EXPECT_THAT(l.interval_refused, HasSubstr("effective samples of 20"));
  EXPECT_THAT(l.interval_refused, HasSubstr("too few for a 95% interval"));
  const LayerStats one = VirtqueueLayer(t, {0.0}, {3}, "x");
  EXPECT_FALSE(one.has_depth_interval);
  EXPECT_THAT(one.interval_refused, HasSubstr("one sample"));
}

}  // namespace
}  // namespace storbed
