#include "libvirt/virt_handles.h"

#include <gtest/gtest.h>

namespace storbed {
namespace {

TEST(LibvirtConnectionTest, ADaemonThatIsNotThereIsOneErrorNamingTheUri) {
  const std::string uri = "qemu+unix:///system?socket=/nonexistent/libvirt-sock";
  try {
    LibvirtConnection::Open(uri);
    FAIL() << "connected to a socket that does not exist";
  } catch (const LibvirtError& e) {
    EXPECT_EQ(e.uri(), uri);
    EXPECT_EQ(std::string(e.what()).rfind("libvirt at " + uri + ": cannot connect: ", 0), 0u)
        << e.what();
  }
}

}  // namespace
}  // namespace storbed
