#include "plan/inventory.h"

#include <gtest/gtest.h>

namespace storbed {
namespace {

// The message ParseInventory throws for `text`, or "" when it parses.
std::string ErrorFor(const std::string& text) {
  try {
    ParseInventory(text, "inv.json");
  } catch (const InventoryError& e) {
    return e.what();
  }
  return "";
}

TEST(InventoryTest, ParsesEveryFieldAndDefaults) {
  const Inventory inv = ParseInventory(R"({"hosts": [
    {"name": "lab1", "uri": "qemu+ssh://lab1/system", "max_guests": 2,
     "labels": ["nvme", "fast"], "pool_dir": "/srv/pool"},
    {"name": "lab2", "uri": "qemu+tcp://10.0.0.2/system"}]})",
                                       "inv.json");
  ASSERT_EQ(inv.hosts.size(), 2u);
  EXPECT_EQ(inv.hosts[0].name, "lab1");
  EXPECT_EQ(inv.hosts[0].uri, "qemu+ssh://lab1/system");
  EXPECT_EQ(inv.hosts[0].max_guests, 2u);
  EXPECT_EQ(inv.hosts[0].labels, (std::vector<std::string>{"nvme", "fast"}));
  EXPECT_EQ(inv.hosts[0].pool_dir, "/srv/pool");
  EXPECT_EQ(inv.hosts[1].max_guests, 1u);
  EXPECT_TRUE(inv.hosts[1].labels.empty());
  EXPECT_EQ(inv.hosts[1].pool_dir, "");
}

TEST(InventoryTest, MalformedFilesNameFileFieldAndReason) {
  const struct {
    const char* text;
    const char* message;
  } cases[] = {
      {"{", "inv.json: not valid JSON"},
      {"[]", "inv.json: (top level): must be a JSON object"},
      {"{}", "inv.json: hosts: required field is missing"},
      {R"({"hosts": []})", "inv.json: hosts: expected a non-empty list of hosts"},
      {R"({"hosts": [], "extra": 1})", "inv.json: extra: unknown field (known: hosts)"},
      {R"({"hosts": [7]})", "inv.json: hosts[0]: must be a JSON object"},
      {R"({"hosts": [{"name": "a"}]})", "inv.json: hosts[0].uri: required field is missing"},
      {R"({"hosts": [{"uri": "qemu:///system"}]})",
       "inv.json: hosts[0].name: required field is missing"},
      {R"({"hosts": [{"name": "", "uri": "x"}]})", "inv.json: hosts[0].name: must not be empty"},
      {R"({"hosts": [{"name": "a", "uri": 3}]})",
       "inv.json: hosts[0].uri: expected a string, got 3"},
      {R"({"hosts": [{"name": "a", "uri": "x", "max_guests": 0}]})",
       "inv.json: hosts[0].max_guests: expected an integer from 1 to 256, got 0"},
      {R"({"hosts": [{"name": "a", "uri": "x", "max_guests": "2"}]})",
       "inv.json: hosts[0].max_guests: expected an integer from 1 to 256, got \"2\""},
      // Regression: truncated to 0 in a uint32_t, every run failed with "no host left".
      {R"({"hosts": [{"name": "a", "uri": "x", "max_guests": 4294967296}]})",
       "inv.json: hosts[0].max_guests: expected an integer from 1 to 256, got 4294967296"},
      // Regression: a million threads ended in std::terminate and left the work dir.
      {R"({"hosts": [{"name": "a", "uri": "x", "max_guests": 1000000}]})",
       "inv.json: hosts[0].max_guests: expected an integer from 1 to 256, got 1000000"},
      {R"({"hosts": [{"name": "a", "uri": "x", "max_guests": 257}]})",
       "inv.json: hosts[0].max_guests: expected an integer from 1 to 256, got 257"},
      {R"({"hosts": [{"name": "lab 1", "uri": "x"}]})",
       "inv.json: hosts[0].name: \"lab 1\" may hold only letters, digits, '.', '_' and '-', "
       "beginning with a letter or digit (it names files, run ids and guests)"},
      {R"({"hosts": [{"name": "a", "uri": "x", "uri": "y"}]})",
       "inv.json: key \"uri\" appears twice in one object (in hosts[0])"},
      {R"({"hosts": [{"name": "a", "uri": "x", "labels": "nvme"}]})",
       "inv.json: hosts[0].labels: expected a list of strings"},
      {R"({"hosts": [{"name": "a", "uri": "x", "labels": ["ok", 1]}]})",
       "inv.json: hosts[0].labels[1]: expected a string, got 1"},
      {R"({"hosts": [{"name": "a", "uri": "x", "pool_dir": "pool"}]})",
       "inv.json: hosts[0].pool_dir: must be an absolute path"},
      {R"({"hosts": [{"name": "a", "uri": "x", "cpus": 4}]})",
       "inv.json: hosts[0].cpus: unknown field (known: name, uri, max_guests, labels, pool_dir)"},
      {R"({"hosts": [{"name": "a", "uri": "x"}, {"name": "a", "uri": "y"}]})",
       "inv.json: hosts[1].name: \"a\" is used by an earlier host"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.text);
    const std::string error = ErrorFor(c.text);
    EXPECT_EQ(error.rfind(c.message, 0), 0u) << error;
  }
}

TEST(InventoryTest, InventoryErrorIsBadInputLikeAScenarioError) {
  EXPECT_THROW(ParseInventory("{}", "inv.json"), ScenarioError);
}

TEST(InventoryTest, MissingFileNamesIt) {
  try {
    LoadInventory("/nonexistent/inv.json");
    FAIL();
  } catch (const InventoryError& e) {
    EXPECT_EQ(std::string(e.what()),
              "/nonexistent/inv.json: the inventory cannot be opened: No such file or directory");
  }
  try {
    LoadInventory("/dev/zero");
    FAIL();
  } catch (const InventoryError& e) {
    EXPECT_EQ(std::string(e.what()),
              "/dev/zero: the inventory is a character device, not a regular file");
  }
}

TEST(InventoryTest, HostLabelSelectsHostsOrNamesTheMissingLabel) {
  const Inventory inv = ParseInventory(R"({"hosts": [
    {"name": "a", "uri": "x", "labels": ["nvme"]}, {"name": "b", "uri": "y"},
    {"name": "c", "uri": "z", "labels": ["fast", "nvme"]}]})",
                                       "inv.json");
  const Inventory nvme = SelectHosts(inv, "nvme");
  ASSERT_EQ(nvme.hosts.size(), 2u);
  EXPECT_EQ(nvme.hosts[0].name, "a");
  EXPECT_EQ(nvme.hosts[1].name, "c");
  EXPECT_EQ(SelectHosts(inv, "").hosts.size(), 3u);
  try {
    SelectHosts(inv, "gpu");
    FAIL();
  } catch (const InventoryError& e) {
    EXPECT_EQ(std::string(e.what()), "inv.json: no host has the label \"gpu\"");
  }
}

}  // namespace
}  // namespace storbed
