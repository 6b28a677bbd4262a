#include "libvirt/qemu_process.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace storbed {
namespace {

class QemuProcessTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = std::filesystem::temp_directory_path() / ("qemu-process-test-" + std::to_string(::getpid()));
    std::filesystem::remove_all(root_);
    std::filesystem::create_directories(root_);
  }
  void TearDown() override { std::filesystem::remove_all(root_); }
  void Process(int pid, const std::string& cmdline_with_nuls) {
    std::filesystem::create_directories(root_ / std::to_string(pid));
    std::ofstream(root_ / std::to_string(pid) / "cmdline", std::ios::binary) << cmdline_with_nuls;
  }
  std::filesystem::path root_;
};

using namespace std::string_literals;

TEST_F(QemuProcessTest, FindsTheQemuOfTheDomainByGuestName) {
  Process(100, "/usr/bin/qemu-system-x86_64\0-name\0guest=storbed-s-m10,debug-threads=on\0"s);
  Process(200, "/usr/bin/qemu-system-x86_64\0-name\0guest=storbed-s-m1,debug-threads=on\0-S\0"s);
  Process(300, "bash\0-c\0echo guest=storbed-s-m1\0"s);
  std::filesystem::create_directories(root_ / "self");
  EXPECT_EQ(FindDomainQemuPid(root_, "storbed-s-m1"), 200);
  EXPECT_EQ(FindDomainQemuPid(root_, "storbed-s-m10"), 100);
  EXPECT_EQ(FindDomainQemuPid(root_, "storbed-s-m2"), -1);
}

TEST_F(QemuProcessTest, CmdlineSplitsOnNuls) {
  Process(5, "a\0b c\0\0d\0"s);
  EXPECT_EQ(ReadCmdline(root_, 5), (std::vector<std::string>{"a", "b c", "", "d"}));
  EXPECT_TRUE(ReadCmdline(root_, 6).empty());
}

}  // namespace
}  // namespace storbed
