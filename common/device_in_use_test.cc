#include "device_in_use.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace storbed {
namespace {

namespace fs = std::filesystem;

// A block device node of a loop number nobody uses, and the kernel's files faked.
class DeviceInUseTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = ::testing::TempDir() + "/device-in-use-" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    node_ = dir_ + "/blk";
    ASSERT_EQ(mknod(node_.c_str(), S_IFBLK | 0600, makedev(7, 250)), 0);
    sources_.mountinfo = dir_ + "/mountinfo";
    sources_.swaps = dir_ + "/swaps";
    sources_.sys_dev_block = dir_ + "/sys";
    std::ofstream(sources_.mountinfo) << "22 1 8:1 / / rw - ext4 /dev/sda1 rw\n";
    std::ofstream(sources_.swaps) << "Filename Type Size Used Priority\n";
    sources_.exclusive_open = false;  // a fake node: no real device behind it
    fs::create_directories(sources_.sys_dev_block + "/7:250/holders");
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string dir_;
  std::string node_;
  DeviceUseSources sources_;
};

TEST_F(DeviceInUseTest, AnUnusedDeviceIsFree) { EXPECT_EQ(DeviceInUse(node_, sources_), ""); }

TEST_F(DeviceInUseTest, AMountedDeviceIsNamedWithItsMountPoint) {
  std::ofstream(sources_.mountinfo, std::ios::app) << "40 22 7:250 / /mnt/data rw - ext4 x rw\n";
  EXPECT_EQ(DeviceInUse(node_, sources_), "is mounted at /mnt/data");
}

TEST_F(DeviceInUseTest, AMountedPartitionIsNamed) {
  fs::create_directories(sources_.sys_dev_block + "/7:250/blk1");
  std::ofstream(sources_.sys_dev_block + "/7:250/blk1/partition") << "1\n";
  std::ofstream(sources_.sys_dev_block + "/7:250/blk1/dev") << "259:9\n";
  std::ofstream(sources_.mountinfo, std::ios::app) << "41 22 259:9 / /boot rw - ext4 x rw\n";
  EXPECT_EQ(DeviceInUse(node_, sources_), "has its partition blk1, which is mounted at /boot");
}

TEST_F(DeviceInUseTest, AHolderSuchAsLvmIsNamed) {
  fs::create_directories(sources_.sys_dev_block + "/7:250/holders/dm-3");
  EXPECT_EQ(DeviceInUse(node_, sources_), "is held by dm-3 (md, LVM or dm-crypt)");
}

TEST_F(DeviceInUseTest, ActiveSwapIsNamed) {
  std::ofstream(sources_.swaps, std::ios::app) << node_ << " partition 1024 0 -2\n";
  EXPECT_EQ(DeviceInUse(node_, sources_), "is in use as swap");
}

TEST_F(DeviceInUseTest, TheRootFilesystemIsNamedAsSuch) {
  std::ofstream(sources_.mountinfo, std::ios::app) << "40 22 7:250 / /mnt/data rw - ext4 x rw\n"
                                                   << "41 22 7:250 / / rw - ext4 x rw\n";
  EXPECT_EQ(DeviceInUse(node_, sources_), "holds the root filesystem");
}

TEST_F(DeviceInUseTest, APartitionHoldingTheRootFilesystemIsNamed) {
  fs::create_directories(sources_.sys_dev_block + "/7:250/blk2");
  std::ofstream(sources_.sys_dev_block + "/7:250/blk2/partition") << "2\n";
  std::ofstream(sources_.sys_dev_block + "/7:250/blk2/dev") << "259:8\n";
  std::ofstream(sources_.mountinfo, std::ios::app) << "41 22 259:8 / / rw - ext4 x rw\n";
  EXPECT_EQ(DeviceInUse(node_, sources_),
            "has its partition blk2, which holds the root filesystem");
}

TEST_F(DeviceInUseTest, APathThatIsNotABlockDeviceIsNotJudged) {
  std::ofstream(dir_ + "/file") << "x";
  EXPECT_EQ(DeviceInUse(dir_ + "/file", sources_), "");
}

}  // namespace
}  // namespace storbed
