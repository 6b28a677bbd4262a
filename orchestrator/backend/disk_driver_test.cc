#include "backend/disk_driver.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace storbed {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(DiskDriverTest, NullCoAloneHasNoStorage) {
  EXPECT_TRUE(DriverHasStorage(kDriverFile));
  EXPECT_TRUE(DriverHasStorage(kDriverHostDevice));
  EXPECT_FALSE(DriverHasStorage(kDriverNullCo));
  EXPECT_FALSE(DiskDriverOf(kDriverNullCo).libvirt_native);
}

TEST(DiskDriverTest, HostDeviceAloneIsABlockDevice) {
  EXPECT_TRUE(DiskDriverOf(kDriverHostDevice).block_device);
  EXPECT_FALSE(DiskDriverOf(kDriverFile).block_device);
  EXPECT_FALSE(DiskDriverOf(kDriverNullCo).block_device);
}

TEST(DiskDriverTest, ScenarioMayNameFileAndNullCoButNotHostDevice) {
  EXPECT_THAT(ScenarioDiskDrivers(), ElementsAre("file", "null-co"));
}

TEST(DiskDriverTest, UnknownDriverNamesTheAllowedOnes) {
  EXPECT_EQ(FindDiskDriver("nbd"), nullptr);
  try {
    DiskDriverOf("nbd");
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr("\"nbd\""));
    EXPECT_THAT(e.what(), HasSubstr("\"file\", \"host_device\", \"null-co\""));
  }
}

}  // namespace
}  // namespace storbed
