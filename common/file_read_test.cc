#include "file_read.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <string>

#include "error.h"

namespace storbed {
namespace {

class FileReadTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/storbed-file-read-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::system(("rm -rf " + dir_).c_str()); }
  std::string dir_;
};

TEST_F(FileReadTest, ReadsEveryByteOfAFileLargerThanOneBuffer) {
  std::string bytes(200000, '\0');
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>(i * 7);
  std::ofstream(dir_ + "/f", std::ios::binary) << bytes;
  int err = -1;
  EXPECT_EQ(TryReadFile(dir_ + "/f", &err), bytes);
  EXPECT_EQ(err, 0);
  EXPECT_EQ(ReadFileOrEmpty(dir_ + "/f"), bytes);
  EXPECT_EQ(ReadFileOrThrow(dir_ + "/f"), bytes);
}

TEST_F(FileReadTest, AMissingFileGivesItsErrnoEmptyOrAHostErrorNamingThePath) {
  int err = 0;
  EXPECT_EQ(TryReadFile(dir_ + "/none", &err), std::nullopt);
  EXPECT_EQ(err, ENOENT);
  EXPECT_EQ(ReadFileOrEmpty(dir_ + "/none"), "");
  try {
    ReadFileOrThrow(dir_ + "/none");
    FAIL() << "no throw";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::Host);
    EXPECT_EQ(std::string(e.what()), "cannot read " + dir_ + "/none: No such file or directory");
  }
}

// A directory opens with fopen and fails on the first read (EISDIR): that is a failed read,
// not an empty file.
TEST_F(FileReadTest, AReadThatFailsAfterTheOpenIsAFailureNotAnEmptyFile) {
  int err = 0;
  EXPECT_EQ(TryReadFile(dir_, &err), std::nullopt);
  EXPECT_EQ(err, EISDIR);
}

}  // namespace
}  // namespace storbed
