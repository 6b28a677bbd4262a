#include "plan/work_groups.h"

#include <gtest/gtest.h>

namespace storbed {
namespace work_groups_test {  // named, not anonymous: a unity build joins files

Scenario Parse(const std::string& text) { return ParseScenario(text, "t.json"); }

TEST(WorkGroupsTest, KernelAbPairsShareAGroupAndOtherParametersSplitIt) {
  const Scenario s = Parse(R"({"name": "ab", "targets": ["virtio-blk", "nvme"],
    "machine": {"kernel": ["/boot/vmlinuz-6.1.0-a", "/boot/vmlinuz-6.1.0-b"]},
    "disk": {"aio": ["threads", "io_uring"]},
    "jobs": [{"name": "r", "runtime": 1}, {"name": "w", "rw": "write", "runtime": 1}]})");
  const RunPlan plan = PlanScenario(s);
  ASSERT_EQ(plan.machines.size(), 8u);  // 2 targets x 2 kernels x 2 aio
  const auto groups = GroupUnitsForHosts(plan, s);
  ASSERT_EQ(groups.size(), 4u);  // 2 targets x 2 aio; the kernels pair up
  for (const auto& g : groups) {
    ASSERT_EQ(g.units.size(), 2u);
    EXPECT_FALSE(g.local);
    EXPECT_EQ(g.work, 4u);
    const auto& a = plan.machines[g.units[0]];
    const auto& b = plan.machines[g.units[1]];
    EXPECT_EQ(a.target, b.target);
    EXPECT_NE(s.machines[a.machine].machine.kernel, s.machines[b.machine].machine.kernel);
    EXPECT_EQ(s.machines[a.machine].disk.aio, s.machines[b.machine].disk.aio);
    EXPECT_EQ(AbGroupKey(a, s), AbGroupKey(b, s));
  }
}

TEST(WorkGroupsTest, BareMetalUnitsAreLocalGroupsOfTheirOwn) {
  const Scenario s = Parse(R"({"name": "b", "targets": ["virtio-blk", "bare-metal"],
    "jobs": [{"name": "r", "runtime": 1}]})");
  const RunPlan plan = PlanScenario(s);
  const auto groups = GroupUnitsForHosts(plan, s);
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_FALSE(groups[0].local);
  EXPECT_TRUE(groups[1].local);
  EXPECT_EQ(groups[1].units, (std::vector<size_t>{1}));
}

TEST(WorkGroupsTest, PlanOrderGivesOneGroupPerUnit) {
  const Scenario s = Parse(R"({"name": "ab", "targets": ["virtio-blk", "bare-metal"],
    "machine": {"kernel": ["/boot/vmlinuz-6.1.0-a", "/boot/vmlinuz-6.1.0-b"]},
    "jobs": [{"name": "r", "runtime": 1}]})");
  const RunPlan plan = PlanScenario(s);
  const auto groups = UnitsInPlanOrder(plan);
  ASSERT_EQ(groups.size(), plan.machines.size());
  for (size_t i = 0; i < groups.size(); ++i) EXPECT_EQ(groups[i].units[0], i);
  EXPECT_TRUE(groups.back().local);
}

}  // namespace work_groups_test
}  // namespace storbed
