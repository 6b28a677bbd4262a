#include "images/filesystem_image.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <boost/process.hpp>
#include <filesystem>
#include <fstream>

namespace storbed {
namespace {

namespace fs = std::filesystem;

void FillWithOnes(const std::string& path, uint64_t bytes) {
  std::ofstream out(path, std::ios::binary);
  const std::string block(4096, '\x5a');
  for (uint64_t done = 0; done < bytes; done += block.size())
    out.write(block.data(), static_cast<std::streamsize>(std::min<uint64_t>(block.size(), bytes - done)));
}

class FilesystemImageTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("storbed-fsimg-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  FilesystemImageRequest Request(const std::string& type) {
    return FilesystemImageRequest{.image_path = (dir_ / ("img." + type)).string(),
                                  .type = type,
                                  .image_bytes = MinimumImageBytes(type, 4 << 20),
                                  .file = "storbed.dat",
                                  .file_bytes = 4 << 20,
                                  .fill = FillWithOnes};
  }
  fs::path dir_;
};

// debugfs reads the image without mounting it: the file is there at its size.
TEST_F(FilesystemImageTest, Ext4ImageHoldsTheFileAtItsSize) {
  if (boost::process::search_path("mkfs.ext4", {"/usr/sbin", "/sbin"}).empty())
    GTEST_SKIP() << "mkfs.ext4 not installed";
  const FilesystemImage img = CreateFilesystemImage(Request("ext4"));
  EXPECT_EQ(fs::file_size(img.path), img.image_bytes);
  boost::process::ipstream out;
  boost::process::child c(boost::process::search_path("debugfs", {"/usr/sbin", "/sbin"}), "-R",
                          "stat /storbed.dat", img.path,
                          boost::process::std_out > out, boost::process::std_err > boost::process::null);
  std::string text, line;
  while (std::getline(out, line)) text += line + "\n";
  c.wait();
  EXPECT_NE(text.find("Size: 4194304"), std::string::npos) << text;
  EXPECT_FALSE(fs::exists(img.path + ".staging"));
}

TEST_F(FilesystemImageTest, XfsImageIsMade) {
  if (boost::process::search_path("mkfs.xfs", {"/usr/sbin", "/sbin"}).empty())
    GTEST_SKIP() << "mkfs.xfs not installed";
  const FilesystemImage img = CreateFilesystemImage(Request("xfs"));
  EXPECT_EQ(fs::file_size(img.path), img.image_bytes);
  EXPECT_NE(img.mkfs_command.find("mkfs.xfs"), std::string::npos);
  EXPECT_FALSE(fs::exists(img.path + ".proto"));
}

TEST_F(FilesystemImageTest, BadRequestsNameTheField) {
  FilesystemImageRequest r = Request("ext4");
  r.type = "btrfs";
  EXPECT_THROW(
      {
        try {
          CreateFilesystemImage(r);
        } catch (const std::runtime_error& e) {
          EXPECT_STREQ(e.what(), "filesystem: \"btrfs\" is not supported; allowed: ext4, xfs");
          throw;
        }
      },
      std::runtime_error);
  r = Request("ext4");
  r.file = "../x";
  EXPECT_THROW(CreateFilesystemImage(r), std::runtime_error);
  r = Request("ext4");
  r.image_bytes = 1 << 20;
  EXPECT_THROW(CreateFilesystemImage(r), std::runtime_error);
}

TEST(FilesystemImageSizeTest, XfsHasAFloor) {
  EXPECT_EQ(MinimumImageBytes("xfs", 1 << 20), 300ull << 20);
  EXPECT_GT(MinimumImageBytes("ext4", 64ull << 20), 64ull << 20);
}

}  // namespace
}  // namespace storbed
