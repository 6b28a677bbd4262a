#include "execute/boot_breakdown.h"

#include <gtest/gtest.h>

namespace storbed {
namespace {

TEST(BootBreakdownTest, PartsSplitTheHostTimeAtTheGuestsClockStartAndAddUpToIt) {
  const GuestBoot guest{.init_start_s = 3.0, .modules_s = 0.5, .devices_s = 0.25, .uptime_s = 4.0};
  const BootBreakdown boot = BreakDownBoot(10.0, guest);
  ASSERT_TRUE(boot.parts.has_value());
  EXPECT_DOUBLE_EQ(boot.parts->before_kernel_s, 6.0) << "10 s on the host, 4 s of guest uptime";
  EXPECT_DOUBLE_EQ(boot.parts->kernel_to_init_s, 3.0);
  EXPECT_DOUBLE_EQ(boot.parts->modules_s, 0.5);
  EXPECT_DOUBLE_EQ(boot.parts->devices_s, 0.25);
  EXPECT_DOUBLE_EQ(boot.parts->agent_s, 0.25) << "uptime 4 - 3 - 0.5 - 0.25";
  const auto& p = *boot.parts;
  EXPECT_DOUBLE_EQ(p.before_kernel_s + p.kernel_to_init_s + p.modules_s + p.devices_s + p.agent_s,
                   boot.hello_s);
}

TEST(BootBreakdownTest, WithoutTheAgentsReportOnlyTheHostTimeIsRecorded) {
  const BootBreakdown boot = BreakDownBoot(7.5, std::nullopt);
  EXPECT_FALSE(boot.parts.has_value());
  EXPECT_EQ(BootJson(boot), (nlohmann::json{{"hello_s", 7.5}}));
  EXPECT_EQ(DescribeBoot(boot), "7.50 s to hello (the agent sent no breakdown)");
}

TEST(BootBreakdownTest, JsonAndDescriptionNameEveryPart) {
  const BootBreakdown boot = BreakDownBoot(
      10.0, GuestBoot{.init_start_s = 3.0, .modules_s = 0.5, .devices_s = 0.25, .uptime_s = 4.0});
  const nlohmann::json j = BootJson(boot);
  for (const char* key :
       {"hello_s", "before_kernel_s", "kernel_to_init_s", "modules_s", "devices_s", "agent_s"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_DOUBLE_EQ(j["before_kernel_s"].get<double>(), 6.0);
  EXPECT_EQ(DescribeBoot(boot),
            "10.00 s to hello (6.00 before the kernel's clock, 3.00 kernel to init, 0.50 modules, "
            "0.25 devices, 0.25 agent)");
}

}  // namespace
}  // namespace storbed
