#include "passthrough/pci_safety.h"

#include <gtest/gtest.h>

#include "passthrough/fake_sysfs_for_test.h"

namespace storbed {
namespace {

using passthrough_test::FakeSysfs;

constexpr const char* kAddr = "0000:03:00.0";

// A clean NVMe controller alone in IOMMU group 7, with one namespace (259:1), allowed.
class PciSafetyTest : public ::testing::Test {
 protected:
  PciSafetyTest() { fake_.AddNvme(kAddr, 0, 1, "7"); }
  std::string Problem() { return PassthroughProblem(kAddr, allowed_, fake_.Sources()); }

  FakeSysfs fake_;
  std::vector<std::string> allowed_ = {kAddr};
};

TEST_F(PciSafetyTest, CleanDeviceAloneInItsGroupPasses) { EXPECT_EQ(Problem(), ""); }

TEST_F(PciSafetyTest, BridgeAndUnboundPeersInTheGroupPass) {
  fake_.AddPci("0000:00:01.0", "pcieport", "");
  fake_.AddPci("0000:03:00.1", "", "");
  std::filesystem::create_symlink(fake_.Dev("0000:00:01.0"),
                                  fake_.sys() + "/kernel/iommu_groups/7/devices/0000:00:01.0");
  std::filesystem::create_symlink(fake_.Dev("0000:03:00.1"),
                                  fake_.sys() + "/kernel/iommu_groups/7/devices/0000:03:00.1");
  EXPECT_EQ(Problem(), "");
}

TEST_F(PciSafetyTest, MalformedAddressIsRefused) {
  EXPECT_EQ(PassthroughProblem("03:00.0", {"03:00.0"}, fake_.Sources()),
            "\"03:00.0\" is not a PCI address: write domain:bus:device.function in hex, like "
            "\"0000:03:00.0\" (lspci -D shows them)");
}

TEST_F(PciSafetyTest, DeviceNotOnTheAllowListIsRefused) {
  allowed_ = {"0000:04:00.0"};
  EXPECT_EQ(Problem(),
            "PCI device 0000:03:00.0 is not on the allow-list; pass --allow-pci 0000:03:00.0 to "
            "storbed run if handing it to a guest is meant");
}

TEST_F(PciSafetyTest, MissingDeviceIsRefused) {
  EXPECT_EQ(PassthroughProblem("0000:09:00.0", {"0000:09:00.0"}, fake_.Sources()),
            "PCI device 0000:09:00.0 does not exist (no " + fake_.Dev("0000:09:00.0") +
                "); lspci -D lists the devices");
}

TEST_F(PciSafetyTest, MountedNamespaceIsRefused) {
  fake_.Mount("259:1", "/srv/data");
  EXPECT_EQ(Problem(),
            "PCI device 0000:03:00.0: namespace nvme0n1 is mounted at /srv/data; unmount it first");
}

TEST_F(PciSafetyTest, MountedPartitionIsRefused) {
  fake_.AddPartition("nvme0n1", "nvme0n1p1", "259:5");
  fake_.Mount("259:5", "/boot/efi");
  EXPECT_EQ(Problem(),
            "PCI device 0000:03:00.0: partition nvme0n1p1 of namespace nvme0n1 is mounted at "
            "/boot/efi; unmount it first");
}

TEST_F(PciSafetyTest, RootFilesystemIsRefused) {
  fake_.AddPartition("nvme0n1", "nvme0n1p2", "259:6");
  fake_.Mount("259:6", "/");
  EXPECT_EQ(Problem(),
            "PCI device 0000:03:00.0: partition nvme0n1p2 of namespace nvme0n1 holds the root "
            "filesystem; storbed never hands over the device the host runs from");
}

TEST_F(PciSafetyTest, MdMemberIsRefused) {
  fake_.AddHolder("nvme0n1", "md0", "");
  EXPECT_EQ(Problem(),
            "PCI device 0000:03:00.0: namespace nvme0n1 is a member of md array md0; stop the "
            "array first (mdadm --stop /dev/md0)");
}

TEST_F(PciSafetyTest, LvmPhysicalVolumeIsRefused) {
  fake_.AddHolder("nvme0n1", "dm-0", "LVM-abcDEF123");
  EXPECT_EQ(Problem(),
            "PCI device 0000:03:00.0: namespace nvme0n1 is an LVM physical volume (held by dm-0); "
            "deactivate its volume group first (vgchange -an VG)");
}

TEST_F(PciSafetyTest, DmCryptHolderOfAPartitionIsRefused) {
  fake_.AddPartition("nvme0n1", "nvme0n1p3", "259:7");
  fake_.AddHolder("nvme0n1/nvme0n1p3", "dm-1", "CRYPT-LUKS2-0123-cryptdata");
  EXPECT_EQ(Problem(),
            "PCI device 0000:03:00.0: partition nvme0n1p3 of namespace nvme0n1 is open as "
            "dm-crypt (held by dm-1); close it first (cryptsetup close dm-1's name)");
}

TEST_F(PciSafetyTest, OtherDeviceMapperHolderIsRefused) {
  fake_.AddHolder("nvme0n1", "dm-2", "mpath-3600");
  EXPECT_EQ(Problem(),
            "PCI device 0000:03:00.0: namespace nvme0n1 is held by device-mapper device dm-2; "
            "remove it first (dmsetup remove)");
}

TEST_F(PciSafetyTest, SwapIsRefused) {
  fake_.AddPartition("nvme0n1", "nvme0n1p4", "259:8");
  fake_.Swap("nvme0n1p4");
  EXPECT_EQ(Problem(),
            "PCI device 0000:03:00.0: partition nvme0n1p4 of namespace nvme0n1 is in use as swap; "
            "turn it off first (swapoff /dev/nvme0n1p4)");
}

TEST_F(PciSafetyTest, SharedIommuGroupWithADeviceInUseIsRefused) {
  fake_.AddPci("0000:03:00.1", "xhci_hcd", "");
  std::filesystem::create_symlink(fake_.Dev("0000:03:00.1"),
                                  fake_.sys() + "/kernel/iommu_groups/7/devices/0000:03:00.1");
  EXPECT_EQ(Problem(),
            "PCI device 0000:03:00.0 shares IOMMU group 7 with 0000:03:00.1, which is in use "
            "(bound to xhci_hcd); VFIO hands a guest the whole group: unbind 0000:03:00.1 from "
            "xhci_hcd first, or use a slot whose group holds the NVMe device alone");
}

TEST_F(PciSafetyTest, NoIommuGroupIsRefusedNamingHowToTurnItOn) {
  fake_.AddNvme("0000:05:00.0", 1, 1, "");
  EXPECT_EQ(PassthroughProblem("0000:05:00.0", {"0000:05:00.0"}, fake_.Sources()),
            "PCI device 0000:05:00.0 has no IOMMU group: the IOMMU is off; turn on VT-d (Intel) "
            "or AMD-Vi (AMD) in the firmware, boot with intel_iommu=on or amd_iommu=on, and "
            "check that /sys/kernel/iommu_groups is not empty");
}

TEST_F(PciSafetyTest, VfioPciNotLoadedIsRefused) {
  fake_.RemoveDriver("vfio-pci");
  EXPECT_EQ(Problem(),
            "PCI device 0000:03:00.0 cannot be handed over: the vfio-pci driver is not loaded; "
            "run modprobe vfio-pci");
}

TEST_F(PciSafetyTest, DeviceAlreadyOnVfioPciIsRefused) {
  fake_.SetDriver(kAddr, "vfio-pci");
  EXPECT_EQ(Problem(),
            "PCI device 0000:03:00.0 is already bound to vfio-pci: another guest may own it "
            "(after a killed storbed run, storbed cleanup gives it back to its driver)");
}

TEST_F(PciSafetyTest, DeviceWithoutADriverIsRefused) {
  fake_.SetDriver(kAddr, "");
  EXPECT_EQ(Problem(),
            "PCI device 0000:03:00.0 is bound to no driver; bind it to nvme first (echo "
            "0000:03:00.0 > /sys/bus/pci/drivers/nvme/bind) so storbed can check its namespaces");
}

TEST_F(PciSafetyTest, NonNvmeDeviceIsRefused) {
  fake_.AddPci("0000:06:00.0", "xhci_hcd", "9");
  EXPECT_EQ(PassthroughProblem("0000:06:00.0", {"0000:06:00.0"}, fake_.Sources()),
            "PCI device 0000:06:00.0 is bound to xhci_hcd, not nvme: storbed hands over NVMe "
            "controllers only (their namespaces are what it checks and what the bare-metal twin "
            "runs on)");
}

TEST_F(PciSafetyTest, TheBareMetalTwinRunsOnTheFirstNamespace) {
  fake_.AddPartition("nvme0n1", "nvme0n1p1", "259:5");
  EXPECT_EQ(PassthroughNamespaceDevice(kAddr, fake_.Sources()), "/dev/nvme0n1");
  EXPECT_EQ(PciSysfs(fake_.sys()).NvmeSerial(kAddr), "S4EWNX0R123456");
}

TEST(PciAddressTest, AcceptsDomainBusDeviceFunctionOnly) {
  EXPECT_EQ(PciAddressProblem("0000:03:00.0"), "");
  EXPECT_EQ(PciAddressProblem("0000:af:1f.7"), "");
  for (const char* bad : {"", "03:00.0", "0000:03:00", "0000:03:20.0", "0000:03:00.8",
                          "0000:03:00.0 ", "../../x:00:00.0"})
    EXPECT_NE(PciAddressProblem(bad), "") << bad;
}

}  // namespace
}  // namespace storbed
