#include "plan/run_hosts.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "plan/inventory.h"

namespace storbed {
namespace {

TEST(RunHostsTest, DefaultIsOneLocalQemuHost) {
  const auto hosts = HostsFor(RunOptions{});
  ASSERT_EQ(hosts.size(), 1u);
  EXPECT_EQ(hosts[0].name, "local");
  EXPECT_EQ(hosts[0].backend, HostBackend::Qemu);
  EXPECT_EQ(hosts[0].max_guests, 1u);
}

TEST(RunHostsTest, ConnectImpliesLibvirtAndNamesTheHostAfterTheUri) {
  RunOptions o;
  o.backend = "libvirt";
  auto hosts = HostsFor(o);
  ASSERT_EQ(hosts.size(), 1u);
  EXPECT_EQ(hosts[0].backend, HostBackend::Libvirt);
  EXPECT_EQ(hosts[0].uri, "qemu:///system");
  EXPECT_EQ(hosts[0].name, "local");
  o = RunOptions{};
  o.connect_uri = "qemu+ssh://root@lab1:2222/system";
  hosts = HostsFor(o);
  EXPECT_EQ(hosts[0].backend, HostBackend::Libvirt);
  EXPECT_EQ(hosts[0].name, "lab1");
}

TEST(RunHostsTest, QemuBackendWithConnectOrInventoryIsBadInput) {
  RunOptions o;
  o.backend = "qemu";
  o.connect_uri = "qemu:///system";
  EXPECT_THROW(HostsFor(o), ScenarioError);
  o.connect_uri.clear();
  o.inventory_path = "/x.json";
  try {
    HostsFor(o);
    FAIL();
  } catch (const ScenarioError& e) {
    EXPECT_NE(std::string(e.what()).find("--inventory needs the libvirt backend"),
              std::string::npos)
        << e.what();
  }
}

TEST(RunHostsTest, InventoryHostsFilteredByLabel) {
  const std::string path = ::testing::TempDir() + "/inv-" + std::to_string(getpid()) + ".json";
  std::ofstream(path) << R"({"hosts": [
    {"name": "a", "uri": "qemu+tcp://10.0.0.1/system", "max_guests": 2, "labels": ["nvme"],
     "pool_dir": "/srv/p"},
    {"name": "b", "uri": "qemu+tcp://10.0.0.2/system"}]})";
  RunOptions o;
  o.inventory_path = path;
  auto hosts = HostsFor(o);
  ASSERT_EQ(hosts.size(), 2u);
  EXPECT_EQ(hosts[0].backend, HostBackend::Libvirt);
  EXPECT_EQ(hosts[0].max_guests, 2u);
  EXPECT_EQ(hosts[0].pool_dir, "/srv/p");
  o.host_label = "nvme";
  hosts = HostsFor(o);
  ASSERT_EQ(hosts.size(), 1u);
  EXPECT_EQ(hosts[0].name, "a");
  std::filesystem::remove(path);
}

TEST(RunHostsTest, HostNameForUri) {
  EXPECT_EQ(HostNameForUri("qemu:///system"), "local");
  EXPECT_EQ(HostNameForUri("qemu+tcp://127.0.0.1:16600/system"), "local");
  EXPECT_EQ(HostNameForUri("qemu+ssh://lab1/system"), "lab1");
  EXPECT_EQ(HostNameForUri("qemu+ssh://me@lab2:22/system?keyfile=/k"), "lab2");
}

TEST(RunHostsTest, SessionIdIsUtcTimeAndPid) {
  EXPECT_EQ(SessionId(0, 42), "19700101T000000-42");
  EXPECT_EQ(SessionId(1700000000, 7), "20231114T221320-7");
}

TEST(RunHostsTest, DescribeHostsListsEveryFieldAndStatus) {
  const std::vector<RunHost> hosts = {{"lab1", HostBackend::Libvirt, "qemu+ssh://lab1/system", 2, {"nvme"}, ""}};
  const auto doc = DescribeHosts(hosts, {"failed"});
  EXPECT_EQ(doc[0]["name"], "lab1");
  EXPECT_EQ(doc[0]["uri"], "qemu+ssh://lab1/system");
  EXPECT_EQ(doc[0]["labels"][0], "nvme");
  EXPECT_EQ(doc[0]["max_guests"], 2);
  EXPECT_EQ(doc[0]["status"], "failed");
  EXPECT_EQ(DescribeHosts(hosts, {})[0]["status"], "pending");
}

}  // namespace
}  // namespace storbed
