#include "images/file_io.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "images/image_error.h"
#include "images/test_support.h"

namespace storbed {
namespace {

using image_test::TempDir;
using image_test::WriteTestFile;

TEST(FileIo, ReadsBinaryBytes) {
  TempDir dir;
  std::string data("a\0b\xff", 4);
  WriteTestFile(dir / "f", data);
  EXPECT_EQ(ReadFileBytes(dir / "f"), data);
}

TEST(FileIo, MissingFileErrorNamesThePath) {
  TempDir dir;
  try {
    ReadFileBytes(dir / "nope");
    FAIL() << "expected ImageError";
  } catch (const ImageError& e) {
    EXPECT_EQ(e.path(), dir / "nope");
    EXPECT_NE(std::string(e.what()).find(dir / "nope"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("No such file"), std::string::npos);
  }
}

TEST(FileIo, OptionalFileMissingIsEmpty) {
  TempDir dir;
  EXPECT_EQ(ReadOptionalFile(dir / "nope"), "");
}

TEST(FileIo, AtomicWriteReplacesTarget) {
  TempDir dir;
  WriteTestFile(dir / "t", "old");
  WriteFileAtomic(dir / "t", "new contents");
  EXPECT_EQ(ReadFileBytes(dir / "t"), "new contents");
}

TEST(FileIo, UncommittedAtomicFileLeavesNothing) {
  TempDir dir;
  std::string temp;
  {
    AtomicFile file(dir / "t");
    temp = file.temp_path();
    file.stream() << "half";
    EXPECT_TRUE(std::filesystem::exists(temp));
  }
  EXPECT_FALSE(std::filesystem::exists(temp));
  EXPECT_FALSE(std::filesystem::exists(dir / "t"));
}

TEST(FileIo, AtomicFileInMissingDirectoryThrows) {
  TempDir dir;
  EXPECT_THROW(AtomicFile(dir / "no/such/dir/t"), ImageError);
}

}  // namespace
}  // namespace storbed
