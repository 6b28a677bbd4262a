#include "execute/guest_modules.h"

#include <gtest/gtest.h>

#include "backend/bus_table.h"

namespace storbed {
namespace {

std::vector<std::string> ModulesOf(const std::string& text) {
  return GuestModulesFor(ParseScenario(text, "m.json"));
}

TEST(GuestModulesTest, OnlyTheTargetsBusesAndTheAgentChannel) {
  EXPECT_EQ(ModulesOf(R"({"name": "t", "targets": ["virtio-blk", "bare-metal"],
                          "jobs": [{"name": "a"}]})"),
            (std::vector<std::string>{"virtio_pci", "virtio_blk", "virtio_console"}));
  EXPECT_EQ(ModulesOf(R"({"name": "t", "targets": ["nvme", "virtio-scsi"],
                          "jobs": [{"name": "a"}]})"),
            (std::vector<std::string>{"nvme", "virtio_pci", "virtio_scsi", "sd_mod",
                                      "virtio_console"}));
}

// Regression: an NVMe-only (or AHCI-only) guest loaded virtio_console without virtio_pci,
// so the agent's virtio-serial-pci port never appeared and the guest never booted.
TEST(GuestModulesTest, TheAgentsPortNeedsVirtioPciWhateverTheDisks) {
  EXPECT_EQ(ModulesOf(R"({"name": "t", "targets": ["nvme"], "jobs": [{"name": "a"}]})"),
            (std::vector<std::string>{"nvme", "virtio_pci", "virtio_console"}));
  EXPECT_EQ(ModulesOf(R"({"name": "t", "targets": ["ahci"], "jobs": [{"name": "a"}]})"),
            (std::vector<std::string>{"ahci", "sd_mod", "virtio_pci", "virtio_console"}));
}

TEST(GuestModulesTest, AFilesystemBringsItsModuleAndCrc32c) {
  EXPECT_EQ(ModulesOf(R"({"name": "t", "targets": ["virtio-blk"],
                          "disk": {"filesystem": ["none", "xfs", "ext4"], "size": "300m"},
                          "jobs": [{"name": "a", "size": "16m"}]})"),
            (std::vector<std::string>{"virtio_pci", "virtio_blk", "virtio_console",
                                      "crc32c_generic", "xfs", "ext4"}));
}

// What the VM tests' guests, started without a scenario, are built with.
TEST(GuestModulesTest, BusesAndFilesystemsWithoutAScenarioGiveTheSameList) {
  EXPECT_EQ(GuestModulesOf({Bus::VirtioScsi, Bus::VirtioBlk, Bus::Ahci}),
            (std::vector<std::string>{"virtio_pci", "virtio_scsi", "sd_mod", "virtio_blk", "ahci",
                                      "virtio_console"}));
  EXPECT_EQ(GuestModulesOf({Bus::VirtioBlk}, {"", "ext4", "xfs"}),
            (std::vector<std::string>{"virtio_pci", "virtio_blk", "virtio_console",
                                      "crc32c_generic", "ext4", "xfs"}));
  EXPECT_EQ(GuestModulesOf({}), (std::vector<std::string>{"virtio_pci", "virtio_console"}));
}

TEST(GuestModulesTest, TheDefaultIsEveryBusThenTheChannelAndBothFilesystems) {
  std::vector<std::string> expected = BusGuestModules();
  expected.insert(expected.end(), {"virtio_console", "crc32c_generic", "ext4", "xfs"});
  EXPECT_EQ(DefaultGuestModules(), expected);
}

}  // namespace
}  // namespace storbed
