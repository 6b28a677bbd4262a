#include "execute/guest_target.h"

#include <gtest/gtest.h>

#include <sstream>

#include "execute/temp_dir.h"

namespace storbed {
namespace {

// The disk GuestMachineSpec gives QEMU for one scenario, target and backing.
DiskSpec DiskFor(const std::string& scenario_text, TargetKind target, const Backing& backing) {
  const Scenario scenario = ParseScenario(scenario_text, "t.json");
  // Declared first, so it is removed after everything that writes into it.
  const TempDir scratch(::testing::TempDir(), "guest-target-");
  const std::string& dir = scratch.path();
  RunOptions options;
  ResultsDir results(dir);
  std::ostringstream log;
  Manifest manifest(results, {});
  RunHost host;
  RunContext ctx{scenario, options, results,          log,          backing,
                 manifest, host,    scenario.machine, scenario.disk};
  const MachineSpec spec =
      GuestMachineSpec(ctx, target, ToString(target), GuestImage{}, Accel::Tcg, dir + "/machine");
  EXPECT_EQ(spec.disks.size(), 1u);
  return spec.disks.at(0);
}

Backing FileBacking(const std::string& format) {
  Backing b;
  b.path = "/work/backing." + format;
  b.size_bytes = 64 << 20;
  b.format = format;
  return b;
}

TEST(GuestMachineSpecTest, VirtioScsiTargetGetsTheScsiBusWithItsIothreadAndQueues) {
  const DiskSpec d = DiskFor(
      R"({"name": "t", "targets": ["virtio-scsi"],
          "disk": {"iothread": true, "num_queues": 4, "queue_size": 128},
          "jobs": [{"name": "a"}]})",
      TargetKind{Bus::VirtioScsi}, FileBacking("raw"));
  EXPECT_EQ(d.bus, Bus::VirtioScsi);
  EXPECT_TRUE(d.iothread);
  EXPECT_EQ(d.num_queues, 4u);
  EXPECT_EQ(d.queue_size, 128u);
  EXPECT_EQ(d.driver, "file");
  EXPECT_EQ(d.format, "raw");
}

TEST(GuestMachineSpecTest, NvmeHasNoIothread) {
  const DiskSpec d =
      DiskFor(R"({"name": "t", "disk": {"iothread": true}, "jobs": [{"name": "a"}]})",
              TargetKind{Bus::Nvme}, FileBacking("raw"));
  EXPECT_EQ(d.bus, Bus::Nvme);
  EXPECT_FALSE(d.iothread);
}

TEST(GuestMachineSpecTest, Qcow2BackingIsOpenedAsQcow2) {
  const DiskSpec d =
      DiskFor(R"({"name": "t", "disk": {"format": "qcow2"}, "jobs": [{"name": "a"}]})",
              TargetKind{Bus::VirtioBlk}, FileBacking("qcow2"));
  EXPECT_EQ(d.format, "qcow2");
  EXPECT_EQ(d.backing, "/work/backing.qcow2");
}

TEST(GuestMachineSpecTest, PassthroughGivesTheGuestTheDeviceAndTheHostSamplersNoBacking) {
  Backing b;
  b.path = "/dev/nvme0n1";  // bare metal's, before the handover
  b.block_device = true;
  const DiskSpec d = DiskFor(R"({"name": "t", "targets": ["nvme"],
                                 "disk": {"passthrough": "0000:03:00.0"},
                                 "jobs": [{"name": "a"}]})",
                             TargetKind{Bus::Nvme}, b);
  EXPECT_EQ(d.vfio_host, "0000:03:00.0");
  EXPECT_EQ(d.backing, "");
  EXPECT_EQ(d.serial, "");  // the device's own, read when RunGuestTarget binds it
}

TEST(GuestMachineSpecTest, NamedBlockDeviceUsesHostDevice) {
  Backing b;
  b.path = "/dev/sdz";
  b.size_bytes = 1 << 30;
  b.block_device = true;
  const DiskSpec d = DiskFor(R"({"name": "t", "disk": {"backing": "/dev/sdz"},
                                 "jobs": [{"name": "a"}]})",
                             TargetKind{Bus::VirtioBlk}, b);
  EXPECT_EQ(d.driver, "host_device");
  EXPECT_EQ(d.backing, "/dev/sdz");
}

TEST(GuestMachineSpecTest, NullCoHasNoBackingAndTakesSizeAndLatency) {
  Backing b;
  b.size_bytes = 1 << 30;
  b.null_co = true;
  const DiskSpec d = DiskFor(
      R"({"name": "t", "targets": ["virtio-blk"],
          "disk": {"driver": "null-co", "size": "1g", "null_latency": "50us"},
          "jobs": [{"name": "a"}]})",
      TargetKind{Bus::VirtioBlk}, b);
  EXPECT_EQ(d.driver, "null-co");
  EXPECT_EQ(d.backing, "");
  EXPECT_EQ(d.null_size, 1ull << 30);
  EXPECT_EQ(d.null_latency_ns, 50000u);
}

}  // namespace
}  // namespace storbed
