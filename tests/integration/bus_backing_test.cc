// The other buses and backings in a real TCG guest: a virtio-scsi disk (its own
// controller, serial from the VPD page, request-queue depth sampled) and a null-co disk
// (no storage; QEMU completes each request after latency-ns), and an ahci disk (an ide-hd
// on q35's ich9-ahci: serial from libata's VPD page, no virtqueue).
#include <gtest/gtest.h>

#include <iostream>
#include <memory>

#include "backend/backend_qemu.h"
#include "backend/bus_table.h"
#include "execute/backing.h"
#include "sampling/clock_sync.h"
#include "sampling/job_sampler.h"
#include "test_env.h"

namespace storbed {
namespace bus_backing_test {  // named, not anonymous: a unity build joins files

constexpr uint64_t kNullLatencyNs = 200000;  // 200 us: well above TCG's own noise

class BusBackingTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    std::string why;
    const GuestImage image = testing::SharedGuestImage(
        &why, GuestModulesOf({Bus::VirtioScsi, Bus::VirtioBlk, Bus::Ahci}));
    if (image.kernel_path.empty()) return;
    const std::string dir = testing::ScratchDir("bus-backing");
    CreateFilledBacking(dir + "/scsi.raw", 32 << 20);
    CreateFilledBacking(dir + "/ahci.raw", 32 << 20);
    spec_ = testing::TestGuestSpec("itest-bus", image, dir + "/machine");
    DiskSpec scsi;
    scsi.id = "d0";
    scsi.bus = Bus::VirtioScsi;
    scsi.backing = dir + "/scsi.raw";
    scsi.aio = Aio::IoUring;
    scsi.serial = "scsi-d0";
    DiskSpec null;
    null.id = "d1";
    null.driver = "null-co";
    null.null_size = 64 << 20;
    null.null_latency_ns = kNullLatencyNs;
    null.serial = "null-d1";
    DiskSpec ahci;
    ahci.id = "d2";
    ahci.bus = Bus::Ahci;
    ahci.backing = dir + "/ahci.raw";
    ahci.serial = "ahci-d2";
    spec_.disks = {scsi, null, ahci};
    QemuBackend backend;
    machine_ = backend.Start(spec_, std::chrono::seconds(180)).release();
  }
  static void TearDownTestSuite() {
    if (machine_) machine_->Shutdown();
    delete machine_;
    machine_ = nullptr;
  }

  // Runs a 1 s io_uring randread at QD 8 on the disk with `serial`, sampling the host side.
  HostLayers RunSampled(const DiskSpec& disk, JobResult* result) {
    std::string device;
    for (const auto& d : machine_->Hello().devices)
      if (d.serial == disk.serial) device = d.path;
    EXPECT_FALSE(device.empty()) << "no guest disk with serial " << disk.serial;
    JobSpec job;
    job.name = disk.serial;
    job.target = device;
    job.pattern = Pattern::Random;
    job.engine = Engine::IoUring;
    job.iodepth = 8;
    job.runtime_s = 1;
    JobSampler sampler(SourceFromMachine(*machine_, disk));
    sampler.Start();
    const uint64_t start = HostMonotonicNs();
    const Message reply = machine_->Agent().Call(RunRequest{job}, std::chrono::minutes(3),
                                                 [] { machine_->CheckAlive(); });
    const uint64_t end = HostMonotonicNs();
    sampler.Stop();
    if (const auto* e = std::get_if<ErrorReply>(&reply)) ADD_FAILURE() << e->message;
    *result = std::get<ResultReply>(reply).result;
    return sampler.Summarize(start, end);
  }

  static inline MachineSpec spec_;
  static inline Machine* machine_ = nullptr;
};

TEST_F(BusBackingTest, VirtioScsiDiskIsFoundBySerialAndItsQueuesAreSampled) {
  if (!machine_) GTEST_SKIP() << "no guest kernel installed";
  JobResult r;
  const HostLayers host = RunSampled(spec_.disks[0], &r);
  EXPECT_GT(r.ios, 0u);
  EXPECT_TRUE(host.qemu_block.available) << host.qemu_block.reason;
  EXPECT_GT(host.qemu_block.iops, 0);
  ASSERT_TRUE(host.virtqueue.available) << host.virtqueue.reason;
  EXPECT_NE(host.virtqueue.source.find("dev-d0"), std::string::npos);
}

TEST_F(BusBackingTest, NullCoAddsItsLatencyAndTouchesNoHostDevice) {
  if (!machine_) GTEST_SKIP() << "no guest kernel installed";
  JobResult r;
  const HostLayers host = RunSampled(spec_.disks[1], &r);
  EXPECT_GT(r.ios, 0u);
  ASSERT_TRUE(host.qemu_block.available) << host.qemu_block.reason;
  // QEMU's own residence time includes the configured latency.
  EXPECT_GE(host.qemu_block.mean_latency_us, kNullLatencyNs / 1000.0);
  EXPECT_FALSE(host.host_device.available);
}

TEST_F(BusBackingTest, AhciDiskIsFoundBySerialAndHasNoVirtqueue) {
  if (!machine_) GTEST_SKIP() << "no guest kernel installed";
  JobResult r;
  const HostLayers host = RunSampled(spec_.disks[2], &r);
  EXPECT_GT(r.ios, 0u);
  std::cout << "[ measured ] ahci randread QD8: " << r.iops << " IOPS\n";
  ASSERT_TRUE(host.qemu_block.available) << host.qemu_block.reason;
  EXPECT_GT(host.qemu_block.iops, 0);
  EXPECT_FALSE(host.virtqueue.available);
  EXPECT_EQ(host.virtqueue.reason, RowOf(Bus::Ahci).no_virtqueue_reason);
}

}  // namespace bus_backing_test
}  // namespace storbed
