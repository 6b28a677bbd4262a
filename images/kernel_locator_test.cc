#include "images/kernel_locator.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "images/image_error.h"
#include "images/test_support.h"

namespace storbed {
namespace {

using image_test::TempDir;
using image_test::WriteTestFile;

// A fake host: boot/vmlinuz-<r> and modules/<r>/modules.dep for each release.
void AddKernel(const TempDir& root, const std::string& release, bool with_modules = true) {
  WriteTestFile(root / ("boot/vmlinuz-" + release), "kernel " + release);
  if (with_modules) WriteTestFile(root / ("modules/" + release + "/modules.dep"), "");
}

TEST(CompareKernelReleases, NumbersCompareByValue) {
  EXPECT_GT(CompareKernelReleases("6.1.0-10-amd64", "6.1.0-9-amd64"), 0);
  EXPECT_LT(CompareKernelReleases("6.1.0-9-amd64", "6.1.0-10-amd64"), 0);
  EXPECT_GT(CompareKernelReleases("6.10.0-1-amd64", "6.9.0-1-amd64"), 0);
  EXPECT_EQ(CompareKernelReleases("6.1.0-57-amd64", "6.1.0-57-amd64"), 0);
  EXPECT_GT(CompareKernelReleases("6.1.0-57-amd64", "6.1.0-57"), 0);
  EXPECT_EQ(CompareKernelReleases("6.01", "6.1"), 0);
  EXPECT_GT(CompareKernelReleases("5.10.0-30-amd64", "5.10.0-3-cloud-amd64"), 0);
}

// Regression: string order puts 6.1.0-9 after 6.1.0-10; expected -10, buggy result -9.
TEST(FindNewestHostKernel, PicksByVersionNotByStringOrder) {
  TempDir root;
  AddKernel(root, "6.1.0-9-amd64");
  AddKernel(root, "6.1.0-10-amd64");
  AddKernel(root, "5.10.0-28-amd64");
  GuestKernel k = FindNewestHostKernel(root / "boot", root / "modules");
  EXPECT_EQ(k.release, "6.1.0-10-amd64");
  EXPECT_EQ(k.image_path, root / "boot/vmlinuz-6.1.0-10-amd64");
  EXPECT_EQ(k.modules_dir, root / "modules/6.1.0-10-amd64");
}

TEST(FindNewestHostKernel, IgnoresOtherBootFiles) {
  TempDir root;
  AddKernel(root, "6.1.0-1-amd64");
  WriteTestFile(root / "boot/config-9.9.9", "");
  WriteTestFile(root / "boot/initrd.img-9.9.9", "");
  std::filesystem::create_directories(root / "boot/vmlinuz-9.9.9-dir");
  EXPECT_EQ(FindNewestHostKernel(root / "boot", root / "modules").release, "6.1.0-1-amd64");
}

TEST(FindNewestHostKernel, NoKernelSaysWhatToDo) {
  TempDir root;
  std::filesystem::create_directories(root / "boot");
  try {
    FindNewestHostKernel(root / "boot", root / "modules");
    FAIL() << "expected ImageError";
  } catch (const ImageError& e) {
    EXPECT_EQ(std::string(e.what()),
              "no kernel in " + root / "boot" + ": install linux-image-amd64 or pass --kernel");
    EXPECT_EQ(e.path(), root / "boot");
  }
}

TEST(FindNewestHostKernel, MissingBootDirIsNoKernel) {
  TempDir root;
  EXPECT_THROW(FindNewestHostKernel(root / "nothing", root / "modules"), ImageError);
}

TEST(FindNewestHostKernel, NewestWithoutModulesNamesTheDir) {
  TempDir root;
  AddKernel(root, "6.1.0-1-amd64");
  AddKernel(root, "6.1.0-2-amd64", /*with_modules=*/false);
  try {
    FindNewestHostKernel(root / "boot", root / "modules");
    FAIL() << "expected ImageError";
  } catch (const ImageError& e) {
    EXPECT_EQ(e.path(), root / "modules/6.1.0-2-amd64");
  }
}

TEST(KernelFromPaths, ReleaseIsModulesDirBasename) {
  TempDir root;
  AddKernel(root, "6.2.0-custom");
  GuestKernel k =
      KernelFromPaths(root / "boot/vmlinuz-6.2.0-custom", root / "modules/6.2.0-custom/");
  EXPECT_EQ(k.release, "6.2.0-custom");
  EXPECT_EQ(k.image_path, root / "boot/vmlinuz-6.2.0-custom");
}

TEST(KernelFromPaths, MissingImageNamesIt) {
  TempDir root;
  AddKernel(root, "6.2.0");
  try {
    KernelFromPaths(root / "boot/bzImage", root / "modules/6.2.0");
    FAIL() << "expected ImageError";
  } catch (const ImageError& e) {
    EXPECT_EQ(e.path(), root / "boot/bzImage");
    EXPECT_NE(std::string(e.what()).find("does not exist"), std::string::npos);
  }
}

TEST(KernelFromPaths, ModulesDirWithoutModulesDepNamesIt) {
  TempDir root;
  AddKernel(root, "6.2.0", /*with_modules=*/false);
  std::filesystem::create_directories(root / "modules/6.2.0");
  try {
    KernelFromPaths(root / "boot/vmlinuz-6.2.0", root / "modules/6.2.0");
    FAIL() << "expected ImageError";
  } catch (const ImageError& e) {
    EXPECT_EQ(e.path(), root / "modules/6.2.0/modules.dep");
  }
}

TEST(FindNewestHostKernel, RealHostWhenPresent) {
  if (!std::filesystem::exists("/boot") || !std::filesystem::exists("/lib/modules")) {
    GTEST_SKIP() << "no /boot or /lib/modules on this machine";
  }
  try {
    GuestKernel k = FindNewestHostKernel();
    EXPECT_TRUE(std::filesystem::exists(k.image_path));
    EXPECT_TRUE(std::filesystem::exists(k.modules_dir + "/modules.dep"));
  } catch (const ImageError& e) {
    GTEST_SKIP() << "host has no usable kernel: " << e.what();
  }
}

}  // namespace
}  // namespace storbed
