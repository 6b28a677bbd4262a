#include "passthrough/vfio_binding.h"

#include <gtest/gtest.h>

#include "passthrough/fake_sysfs_for_test.h"

namespace storbed {
namespace vfio_binding_test {  // named, not anonymous: a unity build joins files

using passthrough_test::FakeKernelWriter;
using passthrough_test::FakeSysfs;
using passthrough_test::ReadFile;

constexpr const char* kAddr = "0000:03:00.0";

class VfioBindingTest : public ::testing::Test {
 protected:
  VfioBindingTest() {
    fake_.AddNvme(kAddr, 0, 1, "7");
    state_dir_ = fake_.sys() + "/../state";
    std::filesystem::create_directories(state_dir_);
  }
  std::string Driver() { return sys_.DriverOf(kAddr); }
  std::string Override() { return ReadFile(fake_.Dev(kAddr) + "/driver_override"); }
  std::string StateFile() { return state_dir_ + "/vfio-0000:03:00.0.json"; }

  FakeSysfs fake_;
  PciSysfs sys_{fake_.sys()};
  FakeKernelWriter kernel_{fake_};
  std::string state_dir_;
};

TEST_F(VfioBindingTest, BindWritesDriverOverrideThenUnbindsThenProbes) {
  BindToVfio(sys_, kernel_, kAddr);
  EXPECT_EQ(Driver(), "vfio-pci");
  EXPECT_EQ(Override(), "vfio-pci\n");
  EXPECT_EQ(kernel_.writes,
            (std::vector<std::string>{"bus/pci/devices/0000:03:00.0/driver_override <- vfio-pci",
                                      "bus/pci/drivers/nvme/unbind <- 0000:03:00.0",
                                      "bus/pci/drivers_probe <- 0000:03:00.0"}));
}

TEST_F(VfioBindingTest, RestoreClearsTheOverrideUnbindsFromVfioAndBindsTheOriginal) {
  BindToVfio(sys_, kernel_, kAddr);
  kernel_.writes.clear();
  RestoreDriver(sys_, kernel_, {.address = kAddr, .original_driver = "nvme", .serial = ""});
  EXPECT_EQ(Driver(), "nvme");
  EXPECT_EQ(Override(), "(null)\n");
  EXPECT_EQ(kernel_.writes,
            (std::vector<std::string>{"bus/pci/devices/0000:03:00.0/driver_override <- \\n",
                                      "bus/pci/drivers/vfio-pci/unbind <- 0000:03:00.0",
                                      "bus/pci/drivers/nvme/bind <- 0000:03:00.0"}));
}

TEST_F(VfioBindingTest, RestoreOfADeviceAlreadyBackOnlyClearsTheOverride) {
  RestoreDriver(sys_, kernel_, {.address = kAddr, .original_driver = "nvme", .serial = ""});
  EXPECT_EQ(kernel_.writes,
            (std::vector<std::string>{"bus/pci/devices/0000:03:00.0/driver_override <- \\n"}));
  EXPECT_EQ(Driver(), "nvme");
}

TEST_F(VfioBindingTest, BindingRecordsTheOriginalDriverAndSerialUntilRestored) {
  {
    VfioBinding binding(sys_, kernel_, kAddr, state_dir_);
    EXPECT_EQ(Driver(), "vfio-pci");
    EXPECT_EQ(binding.record().serial, "S4EWNX0R123456");
    const auto record = ParseBindingRecord(ReadFile(StateFile()));
    ASSERT_TRUE(record);
    EXPECT_EQ(record->address, kAddr);
    EXPECT_EQ(record->original_driver, "nvme");
  }
  EXPECT_EQ(Driver(), "nvme");
  EXPECT_EQ(Override(), "(null)\n");
  EXPECT_FALSE(std::filesystem::exists(StateFile()));
}

TEST_F(VfioBindingTest, AnExceptionUnwindingPastTheBindingRestoresTheDriver) {
  try {
    VfioBinding binding(sys_, kernel_, kAddr, state_dir_);
    throw std::runtime_error("interrupted (Ctrl-C)");
  } catch (const std::runtime_error&) {
  }
  EXPECT_EQ(Driver(), "nvme");
  EXPECT_FALSE(std::filesystem::exists(StateFile()));
}

TEST_F(VfioBindingTest, AFailedProbeGivesTheDeviceBackAndNamesTheStep) {
  kernel_.vfio_refuses = true;
  try {
    VfioBinding binding(sys_, kernel_, kAddr, state_dir_);
    FAIL() << "bound";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(),
                 "PCI device 0000:03:00.0: binding to vfio-pci: the device is bound to no driver "
                 "after the probe (dmesg may say why)");
  }
  EXPECT_EQ(Driver(), "nvme");
  EXPECT_FALSE(std::filesystem::exists(StateFile()));
}

TEST_F(VfioBindingTest, AFailedRestoreKeepsTheStateFileForCleanup) {
  VfioBinding binding(sys_, kernel_, kAddr, state_dir_);
  kernel_.fail_on = "bus/pci/drivers/vfio-pci/unbind";
  EXPECT_THROW(binding.Restore(), std::runtime_error);
  EXPECT_TRUE(std::filesystem::exists(StateFile()));
  kernel_.fail_on.clear();
  binding.Restore();
  EXPECT_EQ(Driver(), "nvme");
  EXPECT_FALSE(std::filesystem::exists(StateFile()));
}

TEST(BindingRecordTest, RoundTripsAndRefusesWhatIsNotARecord) {
  const PciBindingRecord r{.address = kAddr, .original_driver = "nvme", .serial = "S1"};
  const auto back = ParseBindingRecord(FormatBindingRecord(r));
  ASSERT_TRUE(back);
  EXPECT_EQ(back->original_driver, "nvme");
  EXPECT_EQ(back->serial, "S1");
  EXPECT_FALSE(ParseBindingRecord("not json"));
  EXPECT_FALSE(ParseBindingRecord(R"({"address":"x","original_driver":"nvme","serial":""})"));
  EXPECT_FALSE(
      ParseBindingRecord(R"({"address":"0000:03:00.0","original_driver":"../x","serial":""})"));
}

}  // namespace vfio_binding_test
}  // namespace storbed
