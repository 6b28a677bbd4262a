#include "libvirt_uri.h"

#include <gtest/gtest.h>

namespace storbed {
namespace libvirt_uri_test {  // named, not anonymous: a unity build joins files

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

}  // namespace libvirt_uri_test
}  // namespace storbed
