#include "libvirt/storage_pool.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace storbed {
namespace {

TEST(SharedVolumeNameTest, NamedByBaseNameAndIdentityStableAndChangesWithTheFile) {
  const std::string path = std::filesystem::temp_directory_path() /
                           ("vmlinuz 6.1+x-" + std::to_string(::getpid()));
  std::ofstream(path) << "kernel";
  const std::string a = SharedVolumeName(path);
  EXPECT_EQ(a, SharedVolumeName(path));
  EXPECT_EQ(a.rfind("vmlinuz_6.1_x-", 0), 0u) << a;
  EXPECT_EQ(a.size(), std::string("vmlinuz_6.1_x-").size() + std::to_string(::getpid()).size() + 17);
  std::ofstream(path, std::ios::app) << "more";
  EXPECT_NE(SharedVolumeName(path), a);
  std::filesystem::remove(path);
  EXPECT_THROW(SharedVolumeName(path), std::runtime_error);
}

}  // namespace
}  // namespace storbed
