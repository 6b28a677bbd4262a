#include "device_info.h"

#include <gtest/gtest.h>

#include "temp_tree_for_test.h"

namespace storbed::agent {
namespace {

// A disk as sysfs shows it; `serial_file` is relative to the disk directory.
void AddDisk(const TempTree& sys, const std::string& name, uint64_t sectors,
             const std::string& serial_file = "", const std::string& serial = "") {
  const std::string dir = "block/" + name + "/";
  sys.Write(dir + "size", std::to_string(sectors) + "\n");
  if (!serial_file.empty()) sys.Write(dir + serial_file, serial);
  sys.Write(dir + "queue/logical_block_size", "512\n");
  sys.Write(dir + "queue/physical_block_size", "4096\n");
  sys.Write(dir + "queue/rotational", "0\n");
  sys.Write(dir + "queue/read_ahead_kb", "128\n");
  sys.Write(dir + "queue/nr_requests", "256\n");
  sys.Write(dir + "queue/max_sectors_kb", "1280\n");
  sys.Write(dir + "queue/scheduler", "[mq-deadline] kyber none\n");
}

TEST(DeviceInfo, ReadsVirtioBlkWithSerialOnTheDisk) {
  TempTree sys;
  AddDisk(sys, "vda", 2048, "serial", "storbed-d0\n");
  sys.MakeDir("block/vda/mq/0");
  sys.MakeDir("block/vda/mq/1");

  const std::vector<BlockDeviceInfo> devices = ListBlockDevices(sys.root());
  ASSERT_EQ(devices.size(), 1u);
  const BlockDeviceInfo& d = devices[0];
  EXPECT_EQ(d.name, "vda");
  EXPECT_EQ(d.path, "/dev/vda");
  EXPECT_EQ(d.size_bytes, 2048u * 512);
  EXPECT_EQ(d.serial, "storbed-d0");
  EXPECT_EQ(d.model, "");
  EXPECT_EQ(d.logical_block_size, 512u);
  EXPECT_EQ(d.physical_block_size, 4096u);
  EXPECT_FALSE(d.rotational);
  EXPECT_EQ(d.read_ahead_kb, 128u);
  EXPECT_EQ(d.nr_requests, 256u);
  EXPECT_EQ(d.max_sectors_kb, 1280u);
  EXPECT_EQ(d.scheduler, "mq-deadline");
  EXPECT_EQ(d.nr_hw_queues, 2u);
}

TEST(DeviceInfo, ReadsNvmeSerialAndModelFromTheControllerTrimmed) {
  TempTree sys;
  AddDisk(sys, "nvme0n1", 4096, "device/serial", "nvme-serial-1       \n");
  sys.Write("block/nvme0n1/device/model", "QEMU NVMe Ctrl                          \n");
  sys.Write("block/nvme0n1/queue/scheduler", "[none] mq-deadline\n");
  sys.Write("block/nvme0n1/queue/rotational", "1\n");
  sys.MakeDir("block/nvme0n1/mq/0");

  const std::vector<BlockDeviceInfo> devices = ListBlockDevices(sys.root());
  ASSERT_EQ(devices.size(), 1u);
  EXPECT_EQ(devices[0].serial, "nvme-serial-1");
  EXPECT_EQ(devices[0].model, "QEMU NVMe Ctrl");
  EXPECT_EQ(devices[0].scheduler, "none");
  EXPECT_TRUE(devices[0].rotational);
  EXPECT_EQ(devices[0].nr_hw_queues, 1u);
}

TEST(DeviceInfo, ReadsScsiSerialFromVpdPage80) {
  TempTree sys;
  AddDisk(sys, "sda", 4096, "", "");
  // Header: peripheral 0, page 0x80, length 0x000c; then the serial, space padded.
  sys.Write("block/sda/device/vpd_pg80", std::string("\x00\x80\x00\x0c", 4) + "storbed-d0  ");
  const std::vector<BlockDeviceInfo> devices = ListBlockDevices(sys.root());
  ASSERT_EQ(devices.size(), 1u);
  EXPECT_EQ(devices[0].serial, "storbed-d0");
}

TEST(DeviceInfo, TruncatedOrForeignVpdPageGivesNoSerial) {
  TempTree sys;
  sys.Write("pg", std::string("\x00\x83\x00\x02" "ab", 6));
  EXPECT_EQ(SerialFromVpdPage80(sys.root() / "pg"), "");
  sys.Write("short", std::string("\x00\x80", 2));
  EXPECT_EQ(SerialFromVpdPage80(sys.root() / "short"), "");
  sys.Write("long", std::string("\x00\x80\x00\x40", 4) + "abc");  // length past the end
  EXPECT_EQ(SerialFromVpdPage80(sys.root() / "long"), "abc");
}

TEST(DeviceInfo, SkipsLoopRamZramSrAndEmptyDmButKeepsOthersSorted) {
  TempTree sys;
  AddDisk(sys, "vdb", 8);
  AddDisk(sys, "loop0", 100);
  AddDisk(sys, "ram0", 100);
  AddDisk(sys, "zram0", 100);
  AddDisk(sys, "sr0", 100);
  AddDisk(sys, "dm-0", 0);
  AddDisk(sys, "dm-1", 64);
  AddDisk(sys, "sda", 8);

  std::vector<std::string> names;
  for (const BlockDeviceInfo& d : ListBlockDevices(sys.root())) names.push_back(d.name);
  EXPECT_EQ(names, (std::vector<std::string>{"dm-1", "sda", "vdb"}));
}

TEST(DeviceInfo, MissingAttributesStayZeroAndMissingSysfsGivesNoDevices) {
  TempTree sys;
  sys.Write("block/vdc/size", "16\n");
  const std::optional<BlockDeviceInfo> d = ReadBlockDevice(sys.root(), "vdc");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->size_bytes, 16u * 512);
  EXPECT_EQ(d->serial, "");
  EXPECT_EQ(d->scheduler, "");
  EXPECT_EQ(d->nr_hw_queues, 0u);

  EXPECT_TRUE(ListBlockDevices(sys.root() / "nonexistent").empty());
}

}  // namespace
}  // namespace storbed::agent
