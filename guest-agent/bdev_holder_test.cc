#include "bdev_holder.h"

#include <gtest/gtest.h>

namespace storbed::agent {
namespace {

TEST(BdevHolderTest, HoldsOnlyBlockDevicesOnce) {
  const size_t before = HeldBlockDevices();
  HoldBlockDeviceOpen("/dev/null");           // a character device
  HoldBlockDeviceOpen("/proc/self/status");   // a regular file
  HoldBlockDeviceOpen("/does/not/exist");
  EXPECT_EQ(HeldBlockDevices(), before);
}

}  // namespace
}  // namespace storbed::agent
