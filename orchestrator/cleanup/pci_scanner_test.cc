#include "cleanup/pci_scanner.h"

#include <gtest/gtest.h>

#include <sstream>

#include "cleanup/cleanup_run.h"
#include "cleanup/test_support.h"
#include "passthrough/fake_sysfs_for_test.h"

namespace storbed {
namespace {

using cleanup_test::FakeHost;
using cleanup_test::RecordingActions;
using passthrough_test::FakeKernelWriter;
using passthrough_test::FakeSysfs;

constexpr const char* kAddr = "0000:03:00.0";

class PciScannerTest : public ::testing::Test {
 protected:
  PciScannerTest() {
    sysfs_.AddNvme(kAddr, 0, 1, "7");
    host_.AddProcess(100, 1, 50, {"storbed", "run"});  // the live owner
  }
  HostScanContext Context() {
    return HostScanContext{.proc_root = host_.proc(),
                           .sys_root = host_.sys(),
                           .work_roots = {host_.work()},
                           .results_dirs = {},
                           .this_host = "here",
                           .actions = &actions_};
  }
  // A run's work dir holding the binding's state file, with the device bound to vfio-pci
  // as the run left it: what a SIGKILL between bind and restore leaves.
  std::string KilledRunBoundTheDevice(const OwnerMarker& owner) {
    const std::string dir = host_.AddWorkDir("Ab12Cd", &owner);
    // What VfioBinding does before a SIGKILL stops it: the record, then the bind.
    cleanup_test::WriteFile(
        dir + "/" + BindingStateFileName(kAddr),
        FormatBindingRecord(
            {.address = kAddr, .original_driver = "nvme", .serial = "S4EWNX0R123456"}));
    BindToVfio(PciSysfs(host_.sys()), kernel_, kAddr);
    return dir;
  }

  FakeHost host_;
  FakeSysfs sysfs_{host_.root()};
  FakeKernelWriter kernel_{sysfs_};
  RecordingActions actions_;
  const OwnerMarker dead_{.pid = 200, .start_ticks = 10, .host = "here"};
  const OwnerMarker live_{.pid = 100, .start_ticks = 50, .host = "here"};
};

TEST_F(PciScannerTest, CleanupAfterSigkillGivesTheDeviceBackToItsDriver) {
  const std::string dir = KilledRunBoundTheDevice(dead_);
  ASSERT_EQ(PciSysfs(host_.sys()).DriverOf(kAddr), "vfio-pci");
  kernel_.writes.clear();
  std::vector<std::unique_ptr<LeftoverScanner>> scanners;
  scanners.push_back(MakePciBindingScanner(Context(), kernel_));
  std::ostringstream out, err;
  const CleanupTally tally = RunScanners(scanners, {}, out, err);
  EXPECT_EQ(tally.removed, 1);
  EXPECT_EQ(err.str(), "");
  EXPECT_EQ(out.str(),
            "removed vfio-pci binding of PCI device 0000:03:00.0 (back to nvme) (its run's owner "
            "pid 200 gone)\ncleanup: removed 1 item\n");
  EXPECT_EQ(PciSysfs(host_.sys()).DriverOf(kAddr), "nvme");
  EXPECT_EQ(kernel_.writes,
            (std::vector<std::string>{"bus/pci/devices/0000:03:00.0/driver_override <- \\n",
                                      "bus/pci/drivers/vfio-pci/unbind <- 0000:03:00.0",
                                      "bus/pci/drivers/nvme/bind <- 0000:03:00.0"}));
  EXPECT_EQ(actions_.calls,
            (std::vector<std::string>{"unlink " + dir + "/vfio-0000:03:00.0.json"}));
}

TEST_F(PciScannerTest, ALiveRunKeepsItsDevice) {
  KilledRunBoundTheDevice(live_);
  EXPECT_TRUE(MakePciBindingScanner(Context(), kernel_)->Find().empty());
  EXPECT_EQ(PciSysfs(host_.sys()).DriverOf(kAddr), "vfio-pci");
}

TEST_F(PciScannerTest, DryRunChangesNothing) {
  KilledRunBoundTheDevice(dead_);
  kernel_.writes.clear();
  std::vector<std::unique_ptr<LeftoverScanner>> scanners;
  scanners.push_back(MakePciBindingScanner(Context(), kernel_));
  std::ostringstream out, err;
  RunScanners(scanners, {.dry_run = true}, out, err);
  EXPECT_TRUE(kernel_.writes.empty());
  EXPECT_EQ(PciSysfs(host_.sys()).DriverOf(kAddr), "vfio-pci");
}

}  // namespace
}  // namespace storbed
