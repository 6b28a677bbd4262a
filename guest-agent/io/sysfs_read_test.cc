#include "sysfs_read.h"

#include <gtest/gtest.h>

#include <fstream>

#include "temp_file_for_test.h"

namespace storbed {
namespace {

std::string WriteText(const TempDir& dir, const std::string& name, const std::string& text) {
  const std::string path = dir.path() + "/" + name;
  std::ofstream(path) << text;
  return path;
}

TEST(SysfsReadTest, TrimTakesWhitespaceOffBothEnds) {
  EXPECT_EQ(Trim("  QEMU HARDDISK   \n"), "QEMU HARDDISK");
  EXPECT_EQ(Trim("none [mq-deadline]\n"), "none [mq-deadline]");
  EXPECT_EQ(Trim(" \t\n"), "");
}

TEST(SysfsReadTest, ReadsAValueAsTheKernelPrintsIt) {
  TempDir dir;
  EXPECT_EQ(ReadTrimmed(WriteText(dir, "scheduler", "none [mq-deadline] kyber\n")),
            "none [mq-deadline] kyber");
  EXPECT_EQ(ReadUint(WriteText(dir, "max_segments", "254\n")), 254u);
  EXPECT_EQ(ReadUint(WriteText(dir, "max_segment_size", "4294967295\n")), 4294967295u);
}

TEST(SysfsReadTest, AnythingButOneUnsignedNumberIsNoValue) {
  TempDir dir;
  EXPECT_EQ(ReadTrimmed(dir.path() + "/absent"), std::nullopt);
  EXPECT_EQ(ReadUint(dir.path() + "/absent"), std::nullopt);
  EXPECT_EQ(ReadUint(WriteText(dir, "empty", "\n")), std::nullopt);
  EXPECT_EQ(ReadUint(WriteText(dir, "negative", "-1\n")), std::nullopt);
  EXPECT_EQ(ReadUint(WriteText(dir, "trailing", "128 KiB\n")), std::nullopt);
  EXPECT_EQ(ReadUint(WriteText(dir, "word", "always\n")), std::nullopt);
}

}  // namespace
}  // namespace storbed
