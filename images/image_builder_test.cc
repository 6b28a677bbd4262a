#include "images/image_builder.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <lzma.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "images/file_digest.h"
#include "images/file_io.h"
#include "images/image_error.h"
#include "images/test_support.h"

namespace storbed {
namespace image_builder_test {  // named, not anonymous: a unity build joins files

using image_test::HaveCpio;
using image_test::RunCommand;
using image_test::TempDir;
using image_test::WriteTestFile;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

constexpr char kRelease[] = "6.1.0-99-test";

std::string FakeModule(const std::string& name) {
  return std::string(
             "\x7f"
             "ELF fake ") +
         name;
}

std::string Xz(const std::string& data) {
  std::string out(lzma_stream_buffer_bound(data.size()), '\0');
  size_t pos = 0;
  lzma_easy_buffer_encode(6, LZMA_CHECK_CRC32, nullptr,
                          reinterpret_cast<const uint8_t*>(data.data()), data.size(),
                          reinterpret_cast<uint8_t*>(out.data()), &pos, out.size());
  out.resize(pos);
  return out;
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// A fake host kernel: vmlinuz, modules.dep/builtin, one plain and two .ko.xz modules, an agent.
class ImageBuilderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string mods = root_ / (std::string("modules/") + kRelease);
    WriteTestFile(root_ / "boot/vmlinuz", "fake bzImage");
    WriteTestFile(mods + "/modules.dep",
                  "kernel/drivers/virtio/virtio.ko:\n"
                  "kernel/drivers/virtio/virtio_pci.ko.xz: kernel/drivers/virtio/virtio.ko\n"
                  "kernel/drivers/block/virtio_blk.ko.xz: kernel/drivers/virtio/virtio.ko\n");
    WriteTestFile(mods + "/modules.builtin", "kernel/drivers/char/virtio_console.ko\n");
    WriteTestFile(mods + "/kernel/drivers/virtio/virtio.ko", FakeModule("virtio"));
    WriteTestFile(mods + "/kernel/drivers/virtio/virtio_pci.ko.xz", Xz(FakeModule("pci")));
    WriteTestFile(mods + "/kernel/drivers/block/virtio_blk.ko.xz", Xz(FakeModule("blk")));
    WriteTestFile(root_ / "agent", "agent v1");
    request_.kernel =
        GuestKernel{.image_path = root_ / "boot/vmlinuz", .modules_dir = mods, .release = kRelease};
    request_.agent_path = root_ / "agent";
    request_.modules = {"virtio_blk", "virtio-pci", "virtio_console"};
    request_.cache_dir = root_ / "cache";
  }

  // Extracts one member of the archive to a string.
  std::string Member(const GuestImage& image, const std::string& name) {
    auto r = RunCommand("/usr/bin/cpio -i --quiet --to-stdout " + name + " < " + image.initrd_path);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    return r.output;
  }

  TempDir root_;
  ImageRequest request_;
};

TEST_F(ImageBuilderTest, ResultDescribesTheBuild) {
  GuestImage image = BuildGuestImage(request_);
  EXPECT_EQ(image.kernel_path, root_ / "boot/vmlinuz");
  EXPECT_EQ(image.kernel_release, kRelease);
  EXPECT_THAT(image.modules, ElementsAre("virtio", "virtio_blk", "virtio_pci"));
  EXPECT_THAT(image.builtin, ElementsAre("virtio_console"));
  EXPECT_FALSE(image.from_cache);
  EXPECT_EQ(image.content_hash.size(), 64u);
  EXPECT_EQ(image.initrd_path, root_ / ("cache/" + image.content_hash + "/initrd.cpio"));
  EXPECT_EQ(image.initrd_bytes, std::filesystem::file_size(image.initrd_path));
  EXPECT_TRUE(std::filesystem::exists(root_ / ("cache/" + image.content_hash + "/image.json")));
}

TEST_F(ImageBuilderTest, ArchiveHoldsAgentModulesAndLoadOrder) {
  if (!HaveCpio()) GTEST_SKIP() << "/usr/bin/cpio not installed (apt-get install cpio)";
  GuestImage image = BuildGuestImage(request_);
  auto listed = RunCommand("/usr/bin/cpio -t --quiet < " + image.initrd_path);
  ASSERT_EQ(listed.exit_code, 0) << listed.output;
  std::string mods = std::string("lib/modules/") + kRelease + "/kernel/drivers/";
  for (const std::string& want :
       {std::string("init"), std::string("dev/console"), mods + "virtio/virtio.ko",
        mods + "virtio/virtio_pci.ko", mods + "block/virtio_blk.ko"}) {
    EXPECT_THAT(Lines(listed.output), ::testing::Contains(want));
  }
  EXPECT_THAT(listed.output, ::testing::Not(HasSubstr(".xz")));

  EXPECT_EQ(Member(image, "init"), "agent v1");
  std::string abs = std::string("/lib/modules/") + kRelease + "/kernel/drivers/";
  EXPECT_THAT(Lines(Member(image, "etc/storbed/modules")),
              ElementsAre(abs + "virtio/virtio.ko", abs + "block/virtio_blk.ko",
                          abs + "virtio/virtio_pci.ko"));
  EXPECT_EQ(Member(image, mods + "virtio/virtio_pci.ko"), FakeModule("pci"));
  EXPECT_EQ(Member(image, mods + "block/virtio_blk.ko"), FakeModule("blk"));
  EXPECT_EQ(Member(image, mods + "virtio/virtio.ko"), FakeModule("virtio"));

  nlohmann::json manifest = nlohmann::json::parse(Member(image, "etc/storbed/image.json"));
  EXPECT_EQ(manifest["kernel_release"], kRelease);
  EXPECT_EQ(manifest["agent_sha256"], Sha256Hex("agent v1"));
  EXPECT_EQ(manifest["content_hash"], image.content_hash);
  EXPECT_EQ(manifest["builtin"], nlohmann::json::array({"virtio_console"}));
  EXPECT_EQ(manifest["modules"][1]["name"], "virtio_blk");
  EXPECT_EQ(manifest["modules"][1]["path"], abs + "block/virtio_blk.ko");
}

TEST_F(ImageBuilderTest, SecondBuildHitsTheCache) {
  GuestImage first = BuildGuestImage(request_);
  GuestImage second = BuildGuestImage(request_);
  EXPECT_FALSE(first.from_cache);
  EXPECT_TRUE(second.from_cache);
  EXPECT_EQ(second.content_hash, first.content_hash);
  EXPECT_EQ(second.initrd_path, first.initrd_path);
  EXPECT_EQ(second.initrd_bytes, first.initrd_bytes);
  EXPECT_EQ(second.modules, first.modules);
  EXPECT_EQ(second.builtin, first.builtin);
}

TEST_F(ImageBuilderTest, RebuildIsByteIdentical) {
  GuestImage first = BuildGuestImage(request_);
  std::string bytes = ReadFileBytes(first.initrd_path);
  std::filesystem::remove_all(request_.cache_dir);
  GuestImage again = BuildGuestImage(request_);
  EXPECT_FALSE(again.from_cache);
  EXPECT_EQ(ReadFileBytes(again.initrd_path), bytes);
}

TEST_F(ImageBuilderTest, DifferentAgentChangesTheHash) {
  GuestImage v1 = BuildGuestImage(request_);
  WriteTestFile(root_ / "agent", "agent v2");
  GuestImage v2 = BuildGuestImage(request_);
  EXPECT_NE(v2.content_hash, v1.content_hash);
  EXPECT_FALSE(v2.from_cache);
}

TEST_F(ImageBuilderTest, DifferentKernelOrModuleListChangesTheHash) {
  std::string base = BuildGuestImage(request_).content_hash;
  WriteTestFile(root_ / "boot/vmlinuz", "another bzImage");
  std::string other_kernel = BuildGuestImage(request_).content_hash;
  request_.modules = {"virtio_blk"};
  std::string fewer_modules = BuildGuestImage(request_).content_hash;
  EXPECT_NE(other_kernel, base);
  EXPECT_NE(fewer_modules, other_kernel);
}

TEST_F(ImageBuilderTest, CacheDirHoldsNoTemporaryFiles) {
  GuestImage image = BuildGuestImage(request_);
  std::vector<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(root_ / ("cache/" + image.content_hash)))
    names.push_back(e.path().filename());
  std::sort(names.begin(), names.end());
  EXPECT_THAT(names, ElementsAre("image.json", "initrd.cpio"));
}

TEST_F(ImageBuilderTest, MissingAgentNamesIt) {
  request_.agent_path = root_ / "no-agent";
  try {
    BuildGuestImage(request_);
    FAIL() << "expected ImageError";
  } catch (const ImageError& e) {
    EXPECT_EQ(e.path(), root_ / "no-agent");
    EXPECT_THAT(e.what(), HasSubstr("agent binary"));
  }
}

TEST_F(ImageBuilderTest, UnknownModuleFailsBeforeWritingAnything) {
  request_.modules = {"virtio_blk", "floppy"};
  EXPECT_THROW(BuildGuestImage(request_), ImageError);
  EXPECT_FALSE(std::filesystem::exists(request_.cache_dir));
}

TEST_F(ImageBuilderTest, NonElfModuleNamesTheFile) {
  std::string bad = request_.kernel.modules_dir + "/kernel/drivers/virtio/virtio.ko";
  WriteTestFile(bad, "garbage");
  try {
    BuildGuestImage(request_);
    FAIL() << "expected ImageError";
  } catch (const ImageError& e) {
    EXPECT_EQ(e.path(), bad);
  }
}

TEST_F(ImageBuilderTest, DescribeImageSaysWhatItIs) {
  GuestImage image = BuildGuestImage(request_);
  std::string text = DescribeImage(image);
  EXPECT_THAT(text, HasSubstr(root_ / "boot/vmlinuz"));
  EXPECT_THAT(text, HasSubstr(kRelease));
  EXPECT_THAT(text, HasSubstr("virtio, virtio_blk, virtio_pci"));
  EXPECT_THAT(text, HasSubstr("virtio_console"));
  EXPECT_THAT(text, HasSubstr(image.initrd_path));
  EXPECT_THAT(text, HasSubstr(std::to_string(image.initrd_bytes) + " bytes"));
  EXPECT_THAT(text, HasSubstr(image.content_hash));
  EXPECT_THAT(text, HasSubstr("built"));
  EXPECT_THAT(DescribeImage(BuildGuestImage(request_)), HasSubstr("cached"));
}

// The real host kernel and its modules, with a fake agent: the modules every storbed guest
// loads beside its buses' (execute/guest_modules.h, DefaultGuestModules).
TEST(ImageBuilderHost, BuildsFromNewestHostKernel) {
  GuestKernel kernel;
  try {
    kernel = FindNewestHostKernel();
  } catch (const ImageError& e) {
    GTEST_SKIP() << "no host kernel: " << e.what();
  }
  TempDir dir;
  WriteTestFile(dir / "agent", "agent");
  GuestImage image =
      BuildGuestImage(ImageRequest{.kernel = kernel,
                                   .agent_path = dir / "agent",
                                   .modules = {"virtio_console", "crc32c_generic", "ext4", "xfs"},
                                   .cache_dir = dir / "cache"});
  EXPECT_THAT(image.modules, ::testing::Not(IsEmpty()));
  EXPECT_GT(image.initrd_bytes, 0u);
}

}  // namespace image_builder_test
}  // namespace storbed
