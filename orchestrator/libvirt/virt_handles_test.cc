#include "libvirt/virt_handles.h"

#include <gtest/gtest.h>

namespace storbed {
namespace {

TEST(UriIsOnThisHostTest, LocalForms) {
  EXPECT_TRUE(UriIsOnThisHost("qemu:///system"));
  EXPECT_TRUE(UriIsOnThisHost("qemu:///session"));
  EXPECT_TRUE(UriIsOnThisHost("qemu+unix:///system?socket=/run/x.sock"));
  EXPECT_TRUE(UriIsOnThisHost("qemu+ssh://root@localhost/system"));
  EXPECT_TRUE(UriIsOnThisHost("qemu+tcp://127.0.0.1:16509/system"));
  EXPECT_TRUE(UriIsOnThisHost("qemu+tcp://[::1]/system"));
}

TEST(UriIsOnThisHostTest, RemoteForms) {
  EXPECT_FALSE(UriIsOnThisHost("qemu+ssh://root@bench7/system"));
  EXPECT_FALSE(UriIsOnThisHost("qemu+tls://10.0.0.5/system"));
  EXPECT_FALSE(UriIsOnThisHost("qemu+tcp://[fe80::1]:16509/system"));
}

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
