#include "reports/boot_text.h"

#include <gtest/gtest.h>

namespace storbed {
namespace {

TEST(BootTextTest, OneLinePerGuestWithItsPartsInBootOrder) {
  const auto manifest = nlohmann::json::parse(R"({"machines": {
      "nvme": {"boot": {"hello_s": 10, "before_kernel_s": 6, "kernel_to_init_s": 3,
                        "modules_s": 0.5, "devices_s": 0.25, "agent_s": 0.25}},
      "virtio-blk": {"boot": {"hello_s": 12.5}}}})");
  EXPECT_EQ(RenderBoots(manifest),
            "boot (s, QEMU start to agent hello)\n"
            "  nvme  10.00 = 6.00 before kernel + 3.00 kernel to init + 0.50 modules + 0.25 "
            "devices + 0.25 agent\n"
            "  virtio-blk  12.50 (no breakdown from the agent)\n");
}

TEST(BootTextTest, NothingWhenNoMachineRecordedABoot) {
  EXPECT_EQ(RenderBoots(nlohmann::json::parse(R"({"machines": {"old": {"boot_s": 13}}})")), "");
  EXPECT_EQ(RenderBoots(nlohmann::json::parse(R"({"bare_metal": []})")), "");
  EXPECT_EQ(RenderBootsOfDir("/nonexistent-storbed-dir"), "");
}

}  // namespace
}  // namespace storbed
