#include "images/cpio_writer.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <sstream>

#include "images/file_io.h"
#include "images/image_error.h"
#include "images/test_support.h"

namespace storbed {
namespace {

using image_test::HaveCpio;
using image_test::RunCommand;
using image_test::TempDir;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// Writes the archive to dir/a.cpio and returns that path.
std::string SaveArchive(const TempDir& dir, const std::string& bytes) {
  std::string path = dir / "a.cpio";
  WriteFileAtomic(path, bytes);
  return path;
}

TEST(CpioWriter, ExactBytesOfOneFile) {
  std::ostringstream out;
  CpioWriter cpio(out);
  cpio.AddFile("/hi", "abcde", 0644);
  std::string bytes = out.str();
  static const char kExpected[] =
      "070701"
      "00000001"  // ino
      "000081A4"  // mode: regular file 0644
      "00000000"  // uid
      "00000000"  // gid
      "00000001"  // nlink
      "00000000"  // mtime
      "00000005"  // filesize
      "00000000"  // devmajor
      "00000000"  // devminor
      "00000000"  // rdevmajor
      "00000000"  // rdevminor
      "00000003"  // namesize: "hi" + NUL
      "00000000"  // check
      "hi\0"      // 110 + 3 = 113 bytes, padded to 116
      "\0\0\0"
      "abcde"
      "\0\0\0";  // data padded to 4
  EXPECT_EQ(bytes, std::string(kExpected, sizeof kExpected - 1));
  EXPECT_EQ(bytes.size(), 110u + 3 + 3 + 5 + 3);
  EXPECT_EQ(cpio.bytes_written(), bytes.size());
}

TEST(CpioWriter, TrailerEndsTheArchiveAligned) {
  std::ostringstream out;
  CpioWriter cpio(out);
  cpio.Finish();
  std::string bytes = out.str();
  EXPECT_EQ(bytes.substr(0, 14), "07070100000000");  // trailer has inode 0
  EXPECT_NE(bytes.find(std::string("TRAILER!!!\0", 11)), std::string::npos);
  EXPECT_EQ(bytes.size() % 4, 0u);
  EXPECT_THROW(cpio.AddDirectory("late"), ImageError);
}

TEST(CpioWriter, SameEntriesGiveSameBytes) {
  auto build = [] {
    std::ostringstream out;
    CpioWriter cpio(out);
    cpio.AddDirectory("d");
    cpio.AddFile("d/f", "x", 0600);
    cpio.Finish();
    return out.str();
  };
  EXPECT_EQ(build(), build());
}

TEST(CpioWriter, RejectsBadPaths) {
  std::ostringstream out;
  CpioWriter cpio(out);
  cpio.AddDirectory("etc");
  EXPECT_THROW(cpio.AddFile("", "x"), ImageError);
  EXPECT_THROW(cpio.AddFile("etc/../x", "x"), ImageError);
  EXPECT_THROW(cpio.AddFile("etc//x", "x"), ImageError);
  EXPECT_THROW(cpio.AddDirectory("/etc"), ImageError);  // duplicate, leading '/' ignored
  try {
    cpio.AddFile("lib/modules/x.ko", "x");
    FAIL() << "expected ImageError";
  } catch (const ImageError& e) {
    EXPECT_THAT(e.what(), HasSubstr("parent directory \"lib/modules\""));
  }
}

// The layout shared by the cpio(1) tests.
std::string SampleArchive(bool with_device) {
  std::ostringstream out;
  CpioWriter cpio(out);
  cpio.AddDirectory("/dev");
  cpio.AddDirectory("/etc", 0750);
  cpio.AddDirectory("/tmp", 01777);
  if (with_device) cpio.AddCharDevice("/dev/console", 5, 1, 0600);
  cpio.AddFile("/init",
               std::string("\x7f"
                           "ELF\0\1\2",
                           7),
               0755);
  cpio.AddFile("/etc/a", "a", 0644);        // data needs 3 pad bytes
  cpio.AddFile("/etc/four", "four", 0600);  // no pad
  cpio.AddFile("/etc/empty", "", 0644);
  cpio.AddSymlink("/etc/link", "four");
  cpio.Finish();
  return out.str();
}

TEST(CpioWriter, RealCpioListsEveryEntry) {
  if (!HaveCpio()) GTEST_SKIP() << "/usr/bin/cpio not installed (apt-get install cpio)";
  TempDir dir;
  std::string archive = SaveArchive(dir, SampleArchive(true));
  auto listed = RunCommand("/usr/bin/cpio -t --quiet < " + archive);
  ASSERT_EQ(listed.exit_code, 0) << listed.output;
  EXPECT_THAT(Lines(listed.output), ElementsAre("dev", "etc", "tmp", "dev/console", "init", "etc/a",
                                                "etc/four", "etc/empty", "etc/link"));
  auto verbose = RunCommand("/usr/bin/cpio -tv --quiet < " + archive);
  ASSERT_EQ(verbose.exit_code, 0) << verbose.output;
  EXPECT_THAT(verbose.output, HasSubstr("crw-------"));
  EXPECT_THAT(verbose.output, ::testing::ContainsRegex("5, +1 "));
  EXPECT_THAT(verbose.output, HasSubstr("etc/link -> four"));
}

TEST(CpioWriter, RealCpioExtractsContentsAndModes) {
  if (!HaveCpio()) GTEST_SKIP() << "/usr/bin/cpio not installed (apt-get install cpio)";
  TempDir dir;
  // No device node here: mknod needs CAP_MKNOD, which a CI container may lack.
  std::string archive = SaveArchive(dir, SampleArchive(false));
  std::filesystem::create_directories(dir / "out");
  auto extracted = RunCommand("cd " + dir / "out" + " && /usr/bin/cpio -idm --quiet < " + archive);
  ASSERT_EQ(extracted.exit_code, 0) << extracted.output;
  EXPECT_EQ(ReadFileBytes(dir / "out/init"), std::string("\x7f"
                                                         "ELF\0\1\2",
                                                         7));
  EXPECT_EQ(ReadFileBytes(dir / "out/etc/a"), "a");
  EXPECT_EQ(ReadFileBytes(dir / "out/etc/four"), "four");
  EXPECT_EQ(ReadFileBytes(dir / "out/etc/empty"), "");
  EXPECT_EQ(std::filesystem::read_symlink(dir / "out/etc/link"), "four");
  auto mode = [&](const std::string& rel) {
    struct stat st {};
    EXPECT_EQ(::lstat((dir / ("out/" + rel)).c_str(), &st), 0) << rel;
    return st.st_mode & 07777;
  };
  EXPECT_EQ(mode("init"), 0755u);
  EXPECT_EQ(mode("etc/four"), 0600u);
  EXPECT_EQ(mode("etc"), 0750u);
  EXPECT_EQ(mode("tmp"), 01777u);
}

}  // namespace
}  // namespace storbed
