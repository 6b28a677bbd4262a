// `storbed image list` and `storbed image gc` on a cache holding a real built image: a copy of
// the shared test image (its initrd and the kernel it boots), never the shared cache itself.
#include <gtest/gtest.h>

#include <filesystem>

#include "test_env.h"

namespace storbed::testing {
namespace image_cache_cli_test {  // named, not anonymous: a unity build joins files

namespace fs = std::filesystem;

TEST(ImageCacheCliTest, ListsARealImageAndGcBoundsTheCache) {
  std::string why;
  const GuestImage image = SharedGuestImage(&why);
  if (image.kernel_path.empty()) GTEST_SKIP() << why;
  const std::string dir = ScratchDir("image-cache-cli");
  const std::string cache = dir + "/cache";
  fs::create_directories(cache);
  const fs::path entry = fs::path(image.initrd_path).parent_path();
  fs::copy(entry, fs::path(cache) / entry.filename(), fs::copy_options::recursive);
  const bool pvh = image.boot_kernel_path != image.kernel_path;
  if (pvh) fs::copy_file(image.boot_kernel_path, fs::path(cache) / fs::path(image.boot_kernel_path).filename());

  CliRun r = RunCli({"image", "list", "--cache", cache}, dir + "/list.log");
  ASSERT_EQ(r.exit, "exited with status 0") << r.log;
  EXPECT_NE(r.log.find(image.content_hash), std::string::npos) << r.log;
  EXPECT_NE(r.log.find(image.kernel_release), std::string::npos) << r.log;
  EXPECT_NE(r.log.find(pvh ? "2 entries" : "1 entries"), std::string::npos) << r.log;

  // Room for everything: nothing goes.
  r = RunCli({"image", "gc", "--cache", cache, "--max-size", "10g"}, dir + "/gc-all.log");
  ASSERT_EQ(r.exit, "exited with status 0") << r.log;
  EXPECT_TRUE(fs::exists(fs::path(cache) / entry.filename() / "initrd.cpio"));
  // A dry run with no room names the entries and removes none.
  r = RunCli({"image", "gc", "--cache", cache, "--max-size", "0", "--dry-run"}, dir + "/dry.log");
  ASSERT_EQ(r.exit, "exited with status 0") << r.log;
  EXPECT_NE(r.log.find("would remove " + cache + "/" + image.content_hash), std::string::npos)
      << r.log;
  EXPECT_TRUE(fs::exists(fs::path(cache) / entry.filename() / "initrd.cpio"));
  // No room: the image goes, and with it the kernel no image boots any more.
  r = RunCli({"image", "gc", "--cache", cache, "--max-size", "0"}, dir + "/gc.log");
  ASSERT_EQ(r.exit, "exited with status 0") << r.log;
  EXPECT_TRUE(fs::is_empty(cache)) << r.log;

  r = RunCli({"image", "gc", "--cache", cache, "--max-size", "lots"}, dir + "/bad.log");
  EXPECT_EQ(r.exit, "exited with status 2") << r.log;
  EXPECT_NE(r.log.find("--max-size lots"), std::string::npos) << r.log;
}

}  // namespace image_cache_cli_test
}  // namespace storbed::testing
