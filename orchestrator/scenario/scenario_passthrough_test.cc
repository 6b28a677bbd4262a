// disk.passthrough: the field parses, `scenario explain` knows it, and the scenario
// refuses what cannot sit beside a passed-through NVMe controller.
#include <gtest/gtest.h>

#include "scenario/scenario.h"
#include "scenario/scenario_explain.h"
#include "scenario/scenario_fields.h"

namespace storbed {
namespace scenario_passthrough_test {  // named, not anonymous: a unity build joins files

std::string Scenario(const std::string& targets, const std::string& disk,
                     const std::string& job = R"({"name": "a"})", const std::string& top = "") {
  return R"({"name": "t", "targets": )" + targets + top + R"(, "disk": )" + disk +
         R"(, "jobs": [)" + job + "]}";
}

std::string Refusal(const std::string& text) {
  try {
    ParseScenario(text, "t.json");
  } catch (const ScenarioError& e) {
    return e.what();
  }
  return "(accepted)";
}

TEST(ScenarioPassthroughTest, ParsesTheAddressWithBareMetalFirst) {
  const auto s = ParseScenario(
      Scenario(R"(["bare-metal", "nvme"])", R"({"passthrough": "0000:03:00.0"})"), "t.json");
  EXPECT_EQ(s.disk.passthrough, "0000:03:00.0");
  EXPECT_EQ(s.expanded["disk"]["passthrough"], "0000:03:00.0");
  EXPECT_EQ(ParseScenario(Scenario(R"(["nvme"])", "{}"), "t.json").disk.passthrough, "");
}

TEST(ScenarioPassthroughTest, ExplainKnowsTheField) {
  const FieldSpec* found = nullptr;
  for (const FieldSpec* f : FieldsOf("disk"))
    if (f->name == "passthrough") found = f;
  ASSERT_NE(found, nullptr);
  EXPECT_FALSE(found->matrix);
  EXPECT_NE(found->help.find("--allow-pci"), std::string::npos);
}

TEST(ScenarioPassthroughTest, WriteJobsNeedAllowWrites) {
  EXPECT_EQ(Refusal(Scenario(R"(["nvme"])", R"({"passthrough": "0000:03:00.0"})",
                             R"({"name": "w", "rw": "write"})")),
            "t.json: jobs[0].rw: \"write\" would overwrite the NVMe device 0000:03:00.0 named in "
            "disk.passthrough; set disk.allow_writes true if that is meant");
  EXPECT_EQ(
      Refusal(Scenario(R"(["nvme"])", R"({"passthrough": "0000:03:00.0", "allow_writes": true})",
                       R"({"name": "w", "rw": "write"})")),
      "(accepted)");
}

struct PassthroughCase {
  const char* name;
  std::string text;
  std::string message;
};

class ScenarioPassthroughRefuses : public ::testing::TestWithParam<PassthroughCase> {};

TEST_P(ScenarioPassthroughRefuses, NamingFieldAndReason) {
  EXPECT_EQ(Refusal(GetParam().text), GetParam().message);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, ScenarioPassthroughRefuses,
    ::testing::Values(
        PassthroughCase{"BadAddress", Scenario(R"(["nvme"])", R"({"passthrough": "03:00.0"})"),
                        "t.json: disk.passthrough: \"03:00.0\" is not a PCI address: write "
                        "domain:bus:device.function in hex, like \"0000:03:00.0\" (lspci -D "
                        "shows them)"},
        PassthroughCase{"AList", Scenario(R"(["nvme"])", R"({"passthrough": ["0000:03:00.0"]})"),
                        "t.json: disk.passthrough: takes one value, not a list"},
        PassthroughCase{
            "WithBacking",
            Scenario(R"(["nvme"])", R"({"passthrough": "0000:03:00.0", "backing": "/dev/sdb"})"),
            "t.json: disk.passthrough: the guest gets PCI device 0000:03:00.0 "
            "itself: it cannot use disk.backing (/dev/sdb) too"},
        PassthroughCase{
            "WithFilesystem",
            Scenario(R"(["nvme"])", R"({"passthrough": "0000:03:00.0", "filesystem": "ext4"})"),
            "t.json: disk.passthrough: the guest gets PCI device 0000:03:00.0 "
            "itself: storbed makes no ext4 image for it"},
        PassthroughCase{"OnVirtioBlk",
                        Scenario(R"(["virtio-blk"])", R"({"passthrough": "0000:03:00.0"})"),
                        "t.json: targets: \"virtio-blk\" cannot hold disk.passthrough "
                        "(0000:03:00.0): the device is an NVMe controller; use targets nvme and "
                        "bare-metal"},
        PassthroughCase{"BareMetalAfterTheGuest",
                        Scenario(R"(["nvme", "bare-metal"])", R"({"passthrough": "0000:03:00.0"})"),
                        "t.json: targets: with disk.passthrough, list \"bare-metal\" first: it "
                        "runs on the device's namespace before the device is handed to the "
                        "guest"},
        PassthroughCase{"RandomOrder",
                        Scenario(R"(["nvme"])", R"({"passthrough": "0000:03:00.0"})",
                                 R"({"name": "a"})", R"(, "order": "random")"),
                        "t.json: order: with disk.passthrough, only \"sequential\": bare metal "
                        "runs on the device before the guest gets it"}),
    [](const auto& info) { return std::string(info.param.name); });

}  // namespace scenario_passthrough_test
}  // namespace storbed
