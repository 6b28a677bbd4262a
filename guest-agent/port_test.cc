#include "port.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <chrono>
#include <thread>

#include "temp_tree_for_test.h"

namespace storbed::agent {
namespace {

using std::chrono::milliseconds;

PortSearch SearchIn(const TempTree& sys, const TempTree& dev, milliseconds timeout) {
  PortSearch search;
  search.sysfs_root = sys.root();
  search.dev_root = dev.root();
  search.timeout = timeout;
  return search;
}

TEST(Port, FindsThePortByNameAmongOthers) {
  TempTree sys, dev;
  sys.Write("class/virtio-ports/vport1p1/name", "org.qemu.guest_agent.0\n");
  sys.Write("class/virtio-ports/vport1p2/name", std::string(kAgentPortName) + "\n");
  dev.Write("vport1p1", "");
  dev.Write("vport1p2", "");

  EXPECT_EQ(FindPort(SearchIn(sys, dev, milliseconds(0))), dev.root() / "vport1p2");
}

TEST(Port, WaitsForAPortThatAppearsLater) {
  TempTree sys, dev;
  std::thread late([&] {
    std::this_thread::sleep_for(milliseconds(150));
    dev.Write("vport2p1", "");
    sys.Write("class/virtio-ports/vport2p1/name", std::string(kAgentPortName) + "\n");
  });
  const std::filesystem::path found = FindPort(SearchIn(sys, dev, milliseconds(5000)));
  late.join();
  EXPECT_EQ(found, dev.root() / "vport2p1");
}

TEST(Port, NotFoundWithinTheTimeoutIsATypedErrorNamingThePort) {
  TempTree sys, dev;
  sys.Write("class/virtio-ports/vport1p1/name", "something.else\n");
  const auto start = std::chrono::steady_clock::now();
  try {
    FindPort(SearchIn(sys, dev, milliseconds(200)));
    FAIL() << "expected PortNotFoundError";
  } catch (const PortNotFoundError& e) {
    EXPECT_EQ(e.port_name(), kAgentPortName);
    EXPECT_NE(std::string(e.what()).find(kAgentPortName), std::string::npos) << e.what();
  }
  EXPECT_GE(std::chrono::steady_clock::now() - start, milliseconds(200));
}

TEST(Port, MissingVirtioPortsClassSaysSo) {
  TempTree sys, dev;
  try {
    FindPort(SearchIn(sys, dev, milliseconds(0)));
    FAIL() << "expected PortNotFoundError";
  } catch (const PortNotFoundError& e) {
    EXPECT_NE(std::string(e.what()).find("virtio-ports"), std::string::npos) << e.what();
  }
}

TEST(Port, MakesTheDeviceNodeFromTheDevFileWhenDevtmpfsHasNot) {
  TempTree sys, dev;
  sys.Write("class/virtio-ports/vport3p1/name", std::string(kAgentPortName) + "\n");
  sys.Write("class/virtio-ports/vport3p1/dev", "251:7\n");
  std::filesystem::path found;
  try {
    found = FindPort(SearchIn(sys, dev, milliseconds(0)));
  } catch (const PortNotFoundError& e) {
    if (::geteuid() != 0) GTEST_SKIP() << "mknod needs root: " << e.what();
    throw;
  }
  ASSERT_EQ(found, dev.root() / "vport3p1");
  struct stat st {};
  ASSERT_EQ(::stat(found.c_str(), &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
  EXPECT_EQ(major(st.st_rdev), 251u);
  EXPECT_EQ(minor(st.st_rdev), 7u);
}

}  // namespace
}  // namespace storbed::agent
