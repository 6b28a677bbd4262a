#include "reports/compare_environment.h"

#include <gtest/gtest.h>

namespace storbed {
namespace {

nlohmann::json Manifest(const std::string& read_ahead, const std::string& load,
                        const std::string& guest_kernel) {
  return {{"environment",
           {{"cpu.model", "Xeon"}, {"backing_device.read_ahead_kb", read_ahead},
            {"load.avg1", load}}},
          {"machines",
           {{"nvme",
             {{"guest_kernel", guest_kernel},
              {"argv", {"qemu-system-x86_64", "-drive",
                        "file=/var/tmp/storbed-work-" + load + "/b.raw,if=none"}}}}}}};
}

TEST(CompareEnvironmentTest, SameEnvironmentDiffersOnlyInTheLoadWhichDoesNotGate) {
  const auto diffs = DiffEnvironments(Manifest("128", "0.5", "6.1"), Manifest("128", "0.9", "6.1"),
                                      {});
  ASSERT_EQ(diffs.size(), 1u);  // the argv's work dir differs only in a path
  EXPECT_EQ(diffs[0].item, "load.avg1");
  EXPECT_FALSE(Blocks(diffs[0]));
}

TEST(CompareEnvironmentTest, AChangedDeviceSettingBlocksUnlessAllowed) {
  auto diffs = DiffEnvironments(Manifest("128", "1", "6.1"), Manifest("0", "1", "6.1"), {});
  ASSERT_EQ(diffs.size(), 1u);
  EXPECT_EQ(diffs[0].item, "backing_device.read_ahead_kb");
  EXPECT_EQ(diffs[0].base, "128");
  EXPECT_EQ(diffs[0].cand, "0");
  EXPECT_TRUE(Blocks(diffs[0]));
  diffs = DiffEnvironments(Manifest("128", "1", "6.1"), Manifest("0", "1", "6.1"),
                           {"backing_device.read_ahead_kb"});
  EXPECT_FALSE(Blocks(diffs[0]));
}

TEST(CompareEnvironmentTest, GuestKernelsPerMachineAndAPrefixAllowsThem) {
  const auto diffs = DiffEnvironments(Manifest("128", "1", "6.1.0-1"),
                                      Manifest("128", "1", "6.1.0-2-cloud"), {"machine.nvme"});
  ASSERT_EQ(diffs.size(), 1u);
  EXPECT_EQ(diffs[0].item, "machine.nvme.guest_kernel");
  EXPECT_TRUE(diffs[0].allowed);
}

TEST(CompareEnvironmentTest, AManifestWithoutAnEnvironmentIsOneGatingItem) {
  const auto diffs = DiffEnvironments(nlohmann::json::object(), Manifest("1", "1", "1"), {});
  ASSERT_EQ(diffs.size(), 1u);
  EXPECT_EQ(diffs[0].item, "environment");
  EXPECT_EQ(diffs[0].base, "none");
  EXPECT_TRUE(Blocks(diffs[0]));
}

TEST(CompareEnvironmentTest, ArgvLosesItsPaths) {
  EXPECT_EQ(ArgvWithoutPaths({"-drive", "file=/a/b.raw,if=none", "-kernel", "/boot/vmlinuz"}),
            "-drive file=<path>,if=none -kernel <path>");
}

}  // namespace
}  // namespace storbed
