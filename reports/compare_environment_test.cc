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

TEST(CompareEnvironmentTest, ArgvLosesItsPathsAndItsName) {
  EXPECT_EQ(ArgvWithoutPaths({"-name", "storbed-ab-nvme-b2,debug-threads=on", "-drive",
                              "file=/a/b.raw,if=none", "-kernel", "/boot/vmlinuz"}),
            "-name <name> -drive file=<path>,if=none -kernel <path>");
}

// One run split by --by: machines m1 (kernel A) and m2 (kernel B), one boot each per round.
nlohmann::json TwoKernels(const std::string& accel_of_m2) {
  auto machine = [](const std::string& kernel, const std::string& accel, const std::string& cache) {
    return nlohmann::json{{"guest_kernel", kernel}, {"accel", accel},
                          {"argv", {"-name", "x", "-drive", "cache=" + cache}}};
  };
  return {{"machines",
           {{"vb-m1-b1", machine("6.1.0-57-amd64", "tcg", "none")},
            {"vb-m1-b2", machine("6.1.0-57-amd64", "tcg", "none")},
            {"vb-m2-b1", machine("6.1.0-57-cloud-amd64", accel_of_m2, "writeback")}}}};
}

TEST(CompareEnvironmentTest, TheByFactorAllowsWhatItChangesAndNothingElse) {
  auto diffs = DiffSidesOfOneRun(TwoKernels("tcg"), {"vb-m1-b1", "vb-m1-b2"}, {"vb-m2-b1"},
                                 "machine.kernel", {});
  ASSERT_EQ(diffs.size(), 2u);
  EXPECT_EQ(diffs[0].item, "machine.guest_kernel");
  EXPECT_EQ(diffs[0].base, "6.1.0-57-amd64");
  EXPECT_EQ(diffs[0].cand, "6.1.0-57-cloud-amd64");
  EXPECT_EQ(diffs[0].why_allowed, "the --by factor");
  EXPECT_FALSE(Blocks(diffs[0]));
  // The argv differs too (cache=): any machine field may change the argv.
  EXPECT_EQ(diffs[1].item, "machine.argv");
  EXPECT_FALSE(Blocks(diffs[1]));
  // A job factor explains neither.
  diffs = DiffSidesOfOneRun(TwoKernels("tcg"), {"vb-m1-b1"}, {"vb-m2-b1"}, "job.bs", {});
  ASSERT_EQ(diffs.size(), 2u);
  EXPECT_TRUE(Blocks(diffs[0]));
  EXPECT_TRUE(Blocks(diffs[1]));
  // A disk field explains the argv, not the kernel.
  diffs = DiffSidesOfOneRun(TwoKernels("tcg"), {"vb-m1-b1"}, {"vb-m2-b1"}, "disk.cache", {});
  ASSERT_EQ(diffs.size(), 2u);
  EXPECT_TRUE(Blocks(diffs[0]));
  EXPECT_FALSE(Blocks(diffs[1]));
  // The accelerator is never the factor's doing; --allow-diff lets it pass.
  diffs = DiffSidesOfOneRun(TwoKernels("kvm"), {"vb-m1-b1"}, {"vb-m2-b1"}, "machine.kernel",
                            {"machine.accel"});
  ASSERT_EQ(diffs.size(), 3u);
  EXPECT_EQ(diffs[1].item, "machine.accel");
  EXPECT_EQ(diffs[1].why_allowed, "--allow-diff");
  // An argv difference shows only the options that differ.
  EXPECT_EQ(diffs[2].base, "...cache=none...");
  EXPECT_EQ(diffs[2].cand, "...cache=writeback...");
  // A job factor: the same machine on both sides, nothing differs.
  EXPECT_TRUE(DiffSidesOfOneRun(TwoKernels("tcg"), {"vb-m1-b1"}, {"vb-m1-b2"}, "job.bs", {})
                  .empty());
}

}  // namespace
}  // namespace storbed
