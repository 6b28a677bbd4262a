#include "images/initramfs.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>

#include "images/file_io.h"
#include "images/image_error.h"
#include "images/test_support.h"

namespace storbed {
namespace initramfs_test {  // named, not anonymous: a unity build joins files

using image_test::HaveCpio;
using image_test::RunCommand;
using image_test::TempDir;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

InitramfsContents Sample() {
  return InitramfsContents{
      .release = "6.1.0-test",
      .agent = "#!agent",
      .modules = {{.name = "virtio", .path = "kernel/drivers/virtio/virtio.ko", .bytes = "V"},
                  {.name = "nvme_core",
                   .path = "kernel/drivers/nvme/host/nvme-core.ko",
                   .bytes = "NC"}},
      .manifest_json = "{}\n"};
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

TEST(Initramfs, ModulePathIsUnderRelease) {
  EXPECT_EQ(InitramfsModulePath("6.1", "kernel/a.ko"), "/lib/modules/6.1/kernel/a.ko");
}

TEST(Initramfs, ReturnsBytesWrittenAndIsReproducible) {
  std::ostringstream a, b;
  uint64_t size = WriteInitramfs(Sample(), a);
  WriteInitramfs(Sample(), b);
  EXPECT_EQ(size, a.str().size());
  EXPECT_EQ(a.str(), b.str());
}

TEST(Initramfs, RejectsReleaseThatIsNotOneDirectory) {
  std::ostringstream out;
  InitramfsContents c = Sample();
  c.release = "../etc";
  EXPECT_THROW(WriteInitramfs(c, out), ImageError);
  c.release = "";
  EXPECT_THROW(WriteInitramfs(c, out), ImageError);
}

TEST(Initramfs, RejectsModulePathEscapingTheModulesDir) {
  std::ostringstream out;
  InitramfsContents c = Sample();
  c.modules[0].path = "../../../init2";
  EXPECT_THROW(WriteInitramfs(c, out), ImageError);
}

TEST(Initramfs, LayoutSeenByRealCpio) {
  if (!HaveCpio()) GTEST_SKIP() << "/usr/bin/cpio not installed (apt-get install cpio)";
  TempDir dir;
  std::ostringstream bytes;
  WriteInitramfs(Sample(), bytes);
  WriteFileAtomic(dir / "i.cpio", bytes.str());
  auto listed = RunCommand("/usr/bin/cpio -tv --quiet < " + dir / "i.cpio");
  ASSERT_EQ(listed.exit_code, 0) << listed.output;
  std::vector<std::string> names;
  for (const std::string& line : Lines(listed.output)) {
    names.push_back(line.substr(line.rfind(' ') + 1));
  }
  for (const char* want :
       {"dev", "proc", "sys", "etc", "etc/storbed", "lib", "lib/modules", "lib/modules/6.1.0-test",
        "lib/modules/6.1.0-test/kernel", "lib/modules/6.1.0-test/kernel/drivers/nvme/host", "tmp",
        "root", "dev/console", "init", "etc/storbed/modules", "etc/storbed/image.json",
        "lib/modules/6.1.0-test/kernel/drivers/virtio/virtio.ko"}) {
    EXPECT_THAT(names, Contains(want));
  }
  EXPECT_THAT(listed.output, HasSubstr("crw-------"));
  EXPECT_THAT(listed.output, ::testing::ContainsRegex("drwxrwxrwt .* tmp\n"));
  EXPECT_THAT(listed.output, ::testing::ContainsRegex("-rwxr-xr-x .* init\n"));

  auto modules = RunCommand("cd " + dir.path() + " && /usr/bin/cpio -i --quiet --to-stdout " +
                            "etc/storbed/modules < i.cpio");
  ASSERT_EQ(modules.exit_code, 0) << modules.output;
  EXPECT_THAT(Lines(modules.output),
              ElementsAre("/lib/modules/6.1.0-test/kernel/drivers/virtio/virtio.ko",
                          "/lib/modules/6.1.0-test/kernel/drivers/nvme/host/nvme-core.ko"));
}

}  // namespace initramfs_test
}  // namespace storbed
