#include "images/image_cache.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <utime.h>

#include <filesystem>
#include <fstream>
#include <set>

namespace storbed {
namespace {

namespace fs = std::filesystem;

std::string Hash(char c) { return std::string(64, c); }

class ImageCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("storbed-image-cache-test-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  void Write(const fs::path& p, size_t bytes, std::time_t mtime) {
    fs::create_directories(p.parent_path());
    std::ofstream(p) << std::string(bytes, 'x');
    SetTime(p, mtime);
  }
  void SetTime(const fs::path& p, std::time_t t) {
    const utimbuf times{t, t};
    ASSERT_EQ(::utime(p.c_str(), &times), 0) << p;
  }
  // An image built for kernel `k`, `bytes` of initrd, last used at `t`.
  void Image(char h, char k, size_t bytes, std::time_t t, bool complete = true) {
    const fs::path d = dir_ / Hash(h);
    fs::create_directories(d);
    std::ofstream(d / "image.json") << R"({"kernel_release": "6.1.0-test", "kernel_sha256": ")"
                                    << Hash(k) << "\"}";
    if (complete) Write(d / "initrd.cpio", bytes, t);
    SetTime(d, t);
  }
  void Kernel(char k, size_t bytes, std::time_t t) { Write(dir_ / ("vmlinux-" + Hash(k)), bytes, t); }

  fs::path dir_;
};

TEST_F(ImageCacheTest, ListsImagesAndKernelsLeastRecentlyUsedFirstAndSkipsOtherFiles) {
  Image('a', 'e', 1000, 300);
  Image('b', 'e', 2000, 100);
  Kernel('e', 500, 200);
  Write(dir_ / "notes.txt", 10, 50);
  fs::create_directories(dir_ / "not-a-hash");
  const auto entries = ListImageCache(dir_.string());
  ASSERT_EQ(entries.size(), 3u);
  EXPECT_EQ(fs::path(entries[0].path).filename(), Hash('b'));
  EXPECT_EQ(entries[1].kind, "kernel");
  EXPECT_EQ(fs::path(entries[2].path).filename(), Hash('a'));
  EXPECT_EQ(entries[2].kernel_release, "6.1.0-test");
  EXPECT_GE(entries[2].bytes, 1000u);
  const std::string table = FormatImageCache(entries);
  EXPECT_NE(table.find("3 entries"), std::string::npos) << table;
  EXPECT_NE(table.find("6.1.0-test"), std::string::npos) << table;
}

TEST_F(ImageCacheTest, GcRemovesTheLeastRecentlyUsedUntilItFitsAndKernelsNoImageBoots) {
  Image('a', 'e', 4000, 300);  // newest, boots e
  Image('b', 'f', 4000, 100);  // oldest, boots f
  Image('c', 'e', 4000, 200);
  Kernel('e', 1000, 50);
  Kernel('f', 1000, 60);
  const auto entries = ListImageCache(dir_.string());
  // Room for two images and a kernel: b goes (the oldest), then f's kernel with it.
  const auto plan = GcPlan(entries, 10000);
  std::set<std::string> gone;
  for (const auto& e : plan) gone.insert(fs::path(e.path).filename().string());
  EXPECT_EQ(gone, (std::set<std::string>{Hash('b'), "vmlinux-" + Hash('f')}));
  // Room for nothing: every image and kernel goes.
  EXPECT_EQ(GcPlan(entries, 0).size(), 5u);
  // Room for everything: nothing goes.
  EXPECT_TRUE(GcPlan(entries, 1u << 30).empty());
}

TEST_F(ImageCacheTest, AnIncompleteImageIsAlwaysCollected) {
  Image('a', 'e', 100, 300);
  Image('b', 'e', 0, 400, /*complete=*/false);  // a killed build: no initrd.cpio
  Kernel('e', 100, 50);
  const auto entries = ListImageCache(dir_.string());
  const auto plan = GcPlan(entries, 1u << 30);
  ASSERT_EQ(plan.size(), 1u);
  EXPECT_EQ(fs::path(plan[0].path).filename(), Hash('b'));
  EXPECT_NE(FormatImageCache(entries).find("(incomplete)"), std::string::npos);
}

TEST_F(ImageCacheTest, MarkingAnEntryUsedMovesItToTheEnd) {
  Image('a', 'e', 100, 100);
  Image('b', 'e', 100, 200);
  MarkCacheEntryUsed((dir_ / Hash('a')).string());
  const auto entries = ListImageCache(dir_.string());
  EXPECT_EQ(fs::path(entries.back().path).filename(), Hash('a'));
}

TEST_F(ImageCacheTest, ANonDirectoryIsRefusedByName) {
  try {
    ListImageCache((dir_ / "missing").string());
    FAIL() << "no throw";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("missing: not a directory"), std::string::npos);
  }
}

}  // namespace
}  // namespace storbed
