#include "target_safety.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "temp_tree_for_test.h"

namespace storbed::agent {
namespace {

// A block device node of a loop number nobody uses, with the kernel's files faked.
class TargetSafetyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    node_ = (tree_.root() / "blk").string();
    ASSERT_EQ(mknod(node_.c_str(), S_IFBLK | 0600, makedev(7, 251)), 0);
    tree_.Write("mountinfo", "22 1 8:1 / / rw - ext4 /dev/sda1 rw\n");
    tree_.Write("swaps", "Filename Type Size Used Priority\n");
    tree_.MakeDir("sys/7:251/holders");
    sources_ = {.mountinfo = (tree_.root() / "mountinfo").string(),
                .swaps = (tree_.root() / "swaps").string(),
                .sys_dev_block = (tree_.root() / "sys").string(),
                .exclusive_open = false};
    spec_.name = "w";
    spec_.target = node_;
  }
  std::string Refusal(bool allow_writes) {
    try {
      CheckStandaloneTarget(spec_, allow_writes, sources_);
      return "";
    } catch (const TargetRefusedError& e) {
      return e.what();
    }
  }
  TempTree tree_;
  std::string node_;
  DeviceUseSources sources_;
  JobSpec spec_;
};

TEST_F(TargetSafetyTest, AFreeDeviceIsReadAndWithAllowWritesWritten) {
  EXPECT_EQ(Refusal(false), "");
  spec_.rw = Direction::Write;
  EXPECT_EQ(Refusal(true), "");
}

TEST_F(TargetSafetyTest, AWriteToABlockDeviceNeedsAllowWrites) {
  spec_.rw = Direction::Mixed;
  EXPECT_EQ(Refusal(false), "job 'w' on " + node_ +
                                ": rw mixed overwrites the data on the block device; pass "
                                "--allow-writes to let the agent write to it");
}

// Regression (issue 38): a write job on a device with a mounted ext4 wrote 56 MB and
// destroyed the filesystem; reads are refused as well, since tunables and caches change.
TEST_F(TargetSafetyTest, AMountedDeviceIsRefusedEvenForReadsAndWithAllowWrites) {
  tree_.Write("mountinfo",
              "22 1 8:1 / / rw - ext4 /dev/sda1 rw\n40 22 7:251 / /mnt/d rw - ext4 x rw\n");
  const std::string expected = "job 'w' on " + node_ +
                               ": the device is mounted at /mnt/d; storbed-agent does not touch "
                               "a device the host is using";
  EXPECT_EQ(Refusal(false), expected);
  spec_.rw = Direction::Write;
  EXPECT_EQ(Refusal(true), expected);
}

TEST_F(TargetSafetyTest, HoldersSwapAndTheRootDeviceAreRefused) {
  tree_.MakeDir("sys/7:251/holders/dm-1");
  EXPECT_NE(Refusal(true).find("is held by dm-1"), std::string::npos);
  std::filesystem::remove(tree_.root() / "sys/7:251/holders/dm-1");
  tree_.Write("swaps", "Filename Type Size Used Priority\n" + node_ + " partition 1 0 -2\n");
  EXPECT_NE(Refusal(true).find("is in use as swap"), std::string::npos);
  tree_.Write("mountinfo", "41 1 7:251 / / rw - ext4 x rw\n");
  EXPECT_NE(Refusal(true).find("the device holds the root filesystem"), std::string::npos);
}

TEST_F(TargetSafetyTest, AFileIsNotJudged) {
  tree_.Write("data", "x");
  spec_.target = (tree_.root() / "data").string();
  spec_.rw = Direction::Write;
  EXPECT_EQ(Refusal(false), "");
}

}  // namespace
}  // namespace storbed::agent
