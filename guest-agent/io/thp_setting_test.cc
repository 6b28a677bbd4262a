#include "thp_setting.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "temp_file_for_test.h"

namespace storbed {
namespace {

// A sysfs tree with only the THP mode file. The kernel shows the mode in brackets and
// takes a bare word; the fake keeps what was written, which is enough to see each write.
class ThpSettingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::filesystem::create_directories(dir_.path() + "/kernel/mm/transparent_hugepage");
  }
  void Set(const std::string& line) { std::ofstream(File()) << line << '\n'; }
  std::string File() const { return dir_.path() + "/kernel/mm/transparent_hugepage/enabled"; }

  TempDir dir_;
};

TEST_F(ThpSettingTest, NeverBecomesMadviseForTheJobAndComesBack) {
  Set("always madvise [never]");
  {
    const ThpMadviseForJob thp(true, dir_.path());
    EXPECT_TRUE(thp.changed());
    EXPECT_EQ(ReadThpSetting(dir_.path()), "madvise");
  }
  EXPECT_EQ(ReadThpSetting(dir_.path()), "never");
}

TEST_F(ThpSettingTest, AModeThatIsOnOrAJobThatDoesNotAskIsLeftAlone) {
  for (const char* on : {"always [madvise] never", "[always] madvise never"}) {
    Set(on);
    {
      const ThpMadviseForJob thp(true, dir_.path());
      EXPECT_FALSE(thp.changed()) << on;
    }
    EXPECT_EQ(ReadThpSetting(dir_.path()), on);
  }
  Set("always madvise [never]");
  {
    const ThpMadviseForJob thp(false, dir_.path());
    EXPECT_FALSE(thp.changed());
  }
  EXPECT_EQ(ReadThpSetting(dir_.path()), "always madvise [never]");
}

TEST_F(ThpSettingTest, NoFileNoChange) {
  const ThpMadviseForJob thp(true, dir_.path() + "/absent");
  EXPECT_FALSE(thp.changed());
  EXPECT_EQ(ReadThpSetting(dir_.path() + "/absent"), "");
}

}  // namespace
}  // namespace storbed
