#include "os_release.h"

#include <gtest/gtest.h>

#include <fstream>

#include "temp_tree_for_test.h"

namespace storbed::agent {
namespace {

TEST(OsReleaseTest, ReadsPrettyNameAndVersionIdWithQuotes) {
  const OsRelease r = ParseOsRelease(
      "# comment\nPRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\nNAME=\"Debian GNU/Linux\"\n"
      "VERSION_ID='12'\nID=debian\n");
  EXPECT_EQ(r.pretty_name, "Debian GNU/Linux 12 (bookworm)");
  EXPECT_EQ(r.version_id, "12");
}

TEST(OsReleaseTest, BareValuesAndEscapes) {
  const OsRelease r = ParseOsRelease("PRETTY_NAME=\"Say \\\"hi\\\"\"\nVERSION_ID=3.19\n");
  EXPECT_EQ(r.pretty_name, "Say \"hi\"");
  EXPECT_EQ(r.version_id, "3.19");
}

TEST(OsReleaseTest, FallsBackToUsrLibAndIsEmptyWithoutEither) {
  TempTree tree;
  EXPECT_EQ(ReadOsRelease(tree.root()).pretty_name, "");
  tree.Write("usr/lib/os-release", "PRETTY_NAME=Fallback\n");
  EXPECT_EQ(ReadOsRelease(tree.root()).pretty_name, "Fallback");
  tree.Write("etc/os-release", "PRETTY_NAME=Etc\n");
  EXPECT_EQ(ReadOsRelease(tree.root()).pretty_name, "Etc");
}

}  // namespace
}  // namespace storbed::agent
