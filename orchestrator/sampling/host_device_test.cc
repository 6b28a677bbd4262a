#include "sampling/host_device.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>

namespace storbed {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// A fake sysfs in a temp dir (real symlinks, as /sys has) and a fake stat().
class HostDeviceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("storbed-sysfs-" + std::to_string(getpid()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_ / "dev/block");
    Disk("254:0", "devices/pci0000:00/virtio1/block/vda");
    Disk("254:1", "devices/pci0000:00/virtio1/block/vda/vda1");
    Write("devices/pci0000:00/virtio1/block/vda/vda1/partition", "1\n");
    Disk("7:0", "devices/virtual/block/loop0");
    Write("devices/virtual/block/loop0/loop/backing_file", "/var/tmp/img.raw (deleted)\n");
    Disk("253:0", "devices/virtual/block/dm-0");
    fs::create_directories(root_ / "devices/virtual/block/dm-0/slaves");
    fs::create_directory_symlink(root_ / "devices/pci0000:00/virtio1/block/vda/vda1",
                                 root_ / "devices/virtual/block/dm-0/slaves/vda1");
    stats_ = {{"/var/tmp/img.raw", {254, 1}}, {"/mnt/loop/backing", {7, 0}},
              {"/dev/shm/x", {0, 45}},        {"/mnt/dm/f", {253, 0}},
              {"/dev/vda", {254, 0}},         {"/gone/dev", {8, 0}}};
  }
  void TearDown() override { fs::remove_all(root_); }

  void Disk(const std::string& id, const std::string& dir) {
    fs::create_directories(root_ / dir);
    fs::create_directory_symlink("../../" + dir, root_ / "dev/block" / id);
  }
  void Write(const std::string& rel, const std::string& text) {
    fs::create_directories((root_ / rel).parent_path());
    std::ofstream(root_ / rel) << text;
  }
  HostDeviceChain Resolve(const std::string& path) {
    StatDeviceFn fake = [this](const std::string& p, std::string* err) -> std::optional<DevNumber> {
      auto it = stats_.find(p);
      if (it == stats_.end()) {
        *err = "No such file or directory";
        return std::nullopt;
      }
      return it->second;
    };
    return ResolveHostDevice(path, root_.string(), fake);
  }

  fs::path root_;
  std::map<std::string, DevNumber> stats_;
};

TEST_F(HostDeviceTest, WholeDiskBlockDevice) {
  HostDeviceChain c = Resolve("/dev/vda");
  ASSERT_TRUE(c.available) << c.reason;
  EXPECT_THAT(c.chain, ElementsAre("vda"));
  EXPECT_THAT(c.devices, ElementsAre("vda"));
}

TEST_F(HostDeviceTest, PartitionIsItsDisk) {
  HostDeviceChain c = Resolve("/var/tmp/img.raw");
  ASSERT_TRUE(c.available) << c.reason;
  EXPECT_THAT(c.chain, ElementsAre("vda"));
  EXPECT_THAT(c.notes, ::testing::Contains(HasSubstr("vda1 is a partition of vda")));
}

TEST_F(HostDeviceTest, LoopFollowsBackingFileEvenWhenDeleted) {
  HostDeviceChain c = Resolve("/mnt/loop/backing");
  ASSERT_TRUE(c.available) << c.reason;
  EXPECT_THAT(c.chain, ElementsAre("loop0", "vda"));
  EXPECT_THAT(c.devices, ElementsAre("vda"));
}

TEST_F(HostDeviceTest, DeviceMapperFollowsSlaves) {
  HostDeviceChain c = Resolve("/mnt/dm/f");
  ASSERT_TRUE(c.available) << c.reason;
  EXPECT_THAT(c.chain, ElementsAre("dm-0", "vda"));
  EXPECT_THAT(c.devices, ElementsAre("vda"));
}

TEST_F(HostDeviceTest, TmpfsHasNoDevice) {
  HostDeviceChain c = Resolve("/dev/shm/x");
  EXPECT_FALSE(c.available);
  EXPECT_EQ(c.reason, "no device: /dev/shm/x is on a filesystem without a block device (tmpfs?)");
  EXPECT_TRUE(c.chain.empty());
}

TEST_F(HostDeviceTest, MissingPathAndMissingSysfsEntryExplain) {
  EXPECT_THAT(Resolve("/nope").reason, HasSubstr("cannot stat /nope: No such file"));
  EXPECT_THAT(Resolve("/gone/dev").reason, HasSubstr("8:0"));
}

TEST_F(HostDeviceTest, LoopCycleStops) {
  stats_["/var/tmp/img.raw"] = {7, 0};  // loop0 backed by a file on loop0
  HostDeviceChain c = Resolve("/mnt/loop/backing");
  EXPECT_FALSE(c.available);
  EXPECT_THAT(c.reason, HasSubstr("deeper than 8"));
}

const char* kBefore =
    " 254       0 vda 1000 10 8000 500 2000 20 16000 1500 0 900 2000 0 0 0 0 10 40\n"
    " 254       1 vda1 900 10 7000 400 1900 20 15000 1400 0 800 1800 0 0 0 0 0 0\n";
const char* kAfter =
    " 254       0 vda 1300 10 10400 800 2700 20 21600 3200 2 1900 4000 0 0 0 0 14 60\n"
    " 254       1 vda1 900 10 7000 400 1900 20 15000 1400 0 800 1800 0 0 0 0 0 0\n";

TEST_F(HostDeviceTest, DiskstatsDeltaIsTheL3Rung) {
  HostDeviceChain c = Resolve("/dev/vda");
  LayerStats l = HostDeviceLayer(c, kBefore, kAfter, 2.0);
  ASSERT_TRUE(l.available) << l.reason;
  EXPECT_EQ(l.layer, kLayerHostDevice);
  EXPECT_EQ(l.source, "/proc/diskstats vda");
  EXPECT_DOUBLE_EQ(l.iops, 500);                // 1000 IOs in 2 s
  EXPECT_DOUBLE_EQ(l.avg_request_bytes, 4096);  // 8000 sectors * 512 / 1000
  EXPECT_DOUBLE_EQ(l.avg_depth, 1.0);           // 2000 ms weighted / 2000 ms
  EXPECT_DOUBLE_EQ(l.mean_latency_us, 2000);    // (300 + 1700) ms / 1000 IOs
  EXPECT_THAT(l.notes, ::testing::Contains("device shared with other host IO"));
  EXPECT_EQ(HostFlushes(c, kBefore, kAfter), 4u);
}

TEST_F(HostDeviceTest, DiskstatsProblemsAreReasonsNotCrashes) {
  HostDeviceChain c = Resolve("/dev/vda");
  EXPECT_THAT(HostDeviceLayer(c, kBefore, "garbage\n", 1).reason, HasSubstr("did not parse"));
  EXPECT_THAT(HostDeviceLayer(c, kAfter, kBefore, 1).reason, HasSubstr("went backwards"));
  EXPECT_THAT(HostDeviceLayer(c, "", "", 1).reason, HasSubstr("no line for vda"));
  HostDeviceChain none = Resolve("/dev/shm/x");
  LayerStats l = HostDeviceLayer(none, kBefore, kAfter, 1);
  EXPECT_FALSE(l.available);
  EXPECT_THAT(l.reason, HasSubstr("no device"));
  EXPECT_FALSE(HostFlushes(none, kBefore, kAfter));
}

// The real host: a file under /var/tmp resolves to a device that /proc/diskstats lists.
TEST(HostDeviceRealTest, FileUnderVarTmpResolves) {
  const std::string path = "/var/tmp/storbed-hostdev-" + std::to_string(getpid());
  std::ofstream(path) << "x";
  HostDeviceChain c = ResolveHostDevice(path);
  fs::remove(path);
  if (!c.available) GTEST_SKIP() << c.reason;
  ASSERT_FALSE(c.devices.empty());
  std::ifstream in("/proc/diskstats");
  std::string text((std::istreambuf_iterator<char>(in)), {});
  for (const std::string& d : c.devices) EXPECT_TRUE(FindDisk(text, d)) << d;
  EXPECT_TRUE(HostDeviceLayer(c, text, text, 1).available);
}

TEST(HostDeviceRealTest, ProcIsNoDevice) {
  HostDeviceChain c = ResolveHostDevice("/proc/self/stat");
  EXPECT_FALSE(c.available);
  EXPECT_THAT(c.reason, HasSubstr("without a block device"));
}

}  // namespace
}  // namespace storbed
