#include "libvirt/backend_libvirt.h"

#include <gtest/gtest.h>

#include "backend/qemu_argv.h"

namespace storbed {
namespace {

MachineSpec ForeignGuest() {
  MachineSpec spec;
  spec.name = "m";
  spec.foreign = ForeignRoot{.overlay = "/w/root-overlay.qcow2",
                             .agent_binary = "/bin/storbed-agent",
                             .push = AgentPushWay::Qga,
                             .seed_image = "",
                             .agent_disk = ""};
  return spec;
}

TEST(CheckForeignImageHostTest, ARemoteUriIsRefusedNamingImageAndTheUri) {
  try {
    CheckForeignImageHost(ForeignGuest(), "qemu+ssh://root@otherhost/system");
    FAIL() << "no exception";
  } catch (const MachineSpecError& e) {
    EXPECT_EQ(e.field(), "image");
    EXPECT_NE(std::string(e.what()).find("qemu+ssh://root@otherhost/system"), std::string::npos)
        << e.what();
  }
}

TEST(CheckForeignImageHostTest, LocalUrisAndStorbedsOwnGuestPass) {
  EXPECT_NO_THROW(CheckForeignImageHost(ForeignGuest(), "qemu:///system"));
  EXPECT_NO_THROW(CheckForeignImageHost(ForeignGuest(), "qemu+ssh://localhost/system"));
  MachineSpec own = ForeignGuest();
  own.foreign.reset();
  EXPECT_NO_THROW(CheckForeignImageHost(own, "qemu+ssh://otherhost/system"));
}

}  // namespace
}  // namespace storbed
