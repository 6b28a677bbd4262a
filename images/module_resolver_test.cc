#include "images/module_resolver.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "images/image_error.h"
#include "images/kernel_locator.h"
#include "images/test_support.h"

namespace storbed {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

// Shaped like Debian 12's modules.dep: each line lists the transitive closure.
constexpr std::string_view kDep =
    "kernel/drivers/virtio/virtio.ko:\n"
    "kernel/drivers/virtio/virtio_ring.ko:\n"
    "kernel/drivers/virtio/virtio_pci_modern_dev.ko:\n"
    "kernel/drivers/virtio/virtio_pci.ko: kernel/drivers/virtio/virtio_pci_modern_dev.ko "
    "kernel/drivers/virtio/virtio.ko kernel/drivers/virtio/virtio_ring.ko\n"
    "kernel/drivers/block/virtio_blk.ko: kernel/drivers/virtio/virtio.ko "
    "kernel/drivers/virtio/virtio_ring.ko\n"
    "kernel/lib/crc64.ko:\n"
    "kernel/block/t10-pi.ko: kernel/lib/crc64.ko\n"
    "kernel/drivers/nvme/host/nvme-core.ko.xz: kernel/block/t10-pi.ko kernel/lib/crc64.ko\n"
    "kernel/drivers/nvme/host/nvme.ko.zst: kernel/drivers/nvme/host/nvme-core.ko.xz "
    "kernel/block/t10-pi.ko kernel/lib/crc64.ko\n"
    "kernel/fs/ext4/ext4.ko.gz: kernel/lib/crc16.ko\n";
constexpr std::string_view kBuiltin =
    "kernel/drivers/char/virtio_console.ko\n"
    "kernel/lib/crc16.ko\n";

ModuleIndex Fixture() { return ModuleIndex::Parse(kDep, kBuiltin, "/fake/modules.dep"); }

std::vector<std::string> Names(const ModulePlan& plan) {
  std::vector<std::string> names;
  for (const ModuleFile& m : plan.load_order) names.push_back(m.name);
  return names;
}

TEST(ModuleNames, NormaliseDashesAndSuffixes) {
  EXPECT_EQ(NormalizeModuleName("nvme-core"), "nvme_core");
  EXPECT_EQ(ModuleNameFromPath("kernel/drivers/nvme/host/nvme-core.ko.zst"), "nvme_core");
  EXPECT_EQ(ModuleNameFromPath("kernel/lib/crc64.ko.xz"), "crc64");
  EXPECT_EQ(ModuleNameFromPath("kernel/fs/ext4/ext4.ko.gz"), "ext4");
  EXPECT_EQ(ModuleNameFromPath("virtio.ko"), "virtio");
}

TEST(ModuleIndex, DepsOfDepsComeFirst) {
  ModulePlan plan = Fixture().Resolve({"nvme"});
  EXPECT_THAT(Names(plan), ElementsAre("crc64", "t10_pi", "nvme_core", "nvme"));
  EXPECT_EQ(plan.load_order[2].path, "kernel/drivers/nvme/host/nvme-core.ko.xz");
  EXPECT_EQ(plan.load_order[3].path, "kernel/drivers/nvme/host/nvme.ko.zst");
  EXPECT_THAT(plan.builtin, IsEmpty());
}

TEST(ModuleIndex, SharedDepsLoadOnceInRequestOrder) {
  ModulePlan plan = Fixture().Resolve({"virtio_pci", "virtio_blk", "nvme"});
  EXPECT_THAT(Names(plan),
              ElementsAre("virtio_pci_modern_dev", "virtio", "virtio_ring", "virtio_pci",
                          "virtio_blk", "crc64", "t10_pi", "nvme_core", "nvme"));
}

TEST(ModuleIndex, RepeatedRequestIsPlacedOnce) {
  EXPECT_THAT(Names(Fixture().Resolve({"virtio_blk", "virtio-blk", "virtio"})),
              ElementsAre("virtio", "virtio_ring", "virtio_blk"));
}

TEST(ModuleIndex, DashAndUnderscoreAreOneModule) {
  EXPECT_THAT(Names(Fixture().Resolve({"nvme-core"})), ElementsAre("crc64", "t10_pi", "nvme_core"));
  EXPECT_THAT(Names(Fixture().Resolve({"t10_pi"})), ElementsAre("crc64", "t10_pi"));
}

TEST(ModuleIndex, BuiltinRequestIsReportedNotLoaded) {
  ModulePlan plan = Fixture().Resolve({"virtio-console", "virtio_blk"});
  EXPECT_THAT(plan.builtin, ElementsAre("virtio_console"));
  EXPECT_THAT(Names(plan), ElementsAre("virtio", "virtio_ring", "virtio_blk"));
}

TEST(ModuleIndex, BuiltinDependencyIsReportedNotLoaded) {
  ModulePlan plan = Fixture().Resolve({"ext4"});
  EXPECT_THAT(Names(plan), ElementsAre("ext4"));
  EXPECT_EQ(plan.load_order[0].path, "kernel/fs/ext4/ext4.ko.gz");
  EXPECT_THAT(plan.builtin, ElementsAre("crc16"));
}

TEST(ModuleIndex, UnknownModuleNamesItAndModulesDep) {
  try {
    Fixture().Resolve({"virtio_blk", "no_such_mod"});
    FAIL() << "expected ImageError";
  } catch (const ImageError& e) {
    EXPECT_THAT(e.what(), HasSubstr("no_such_mod"));
    EXPECT_THAT(e.what(), HasSubstr("/fake/modules.dep"));
    EXPECT_EQ(e.path(), "/fake/modules.dep");
  }
}

TEST(ModuleIndex, UnknownDependencyNamesWhoNeedsIt) {
  ModuleIndex index = ModuleIndex::Parse("a.ko: b.ko\n", "", "/m/modules.dep");
  try {
    index.Resolve({"a"});
    FAIL() << "expected ImageError";
  } catch (const ImageError& e) {
    EXPECT_THAT(e.what(), HasSubstr("module b (needed by a)"));
  }
}

TEST(ModuleIndex, CycleIsAnError) {
  ModuleIndex index =
      ModuleIndex::Parse("x/a.ko: x/b.ko\nx/b.ko: x/c.ko\nx/c.ko: x/a.ko\n", "", "/m/modules.dep");
  try {
    index.Resolve({"a"});
    FAIL() << "expected ImageError";
  } catch (const ImageError& e) {
    EXPECT_THAT(e.what(), HasSubstr("cycle"));
    EXPECT_THAT(e.what(), HasSubstr("a -> b -> c -> a"));
  }
}

TEST(ModuleIndex, MalformedLineNamesFileAndLine) {
  try {
    ModuleIndex::Parse("a.ko:\nthis is not a module line\n", "", "/m/modules.dep");
    FAIL() << "expected ImageError";
  } catch (const ImageError& e) {
    EXPECT_THAT(e.what(), HasSubstr("/m/modules.dep line 2"));
  }
}

TEST(ModuleIndex, ToleratesBlankLinesAndCrlf) {
  ModuleIndex index = ModuleIndex::Parse("\n a.ko: b.ko \r\n\nb.ko:\r\n", "c.ko\r\n", "d");
  EXPECT_THAT(Names(index.Resolve({"a"})), ElementsAre("b", "a"));
  EXPECT_TRUE(index.IsBuiltin("c"));
  EXPECT_TRUE(index.HasModule("b"));
}

TEST(ModuleIndex, LoadReadsFilesAndTreatsMissingBuiltinAsEmpty) {
  image_test::TempDir dir;
  image_test::WriteTestFile(dir / "modules.dep", std::string(kDep));
  EXPECT_THAT(Names(ModuleIndex::Load(dir.path()).Resolve({"virtio_blk"})),
              ElementsAre("virtio", "virtio_ring", "virtio_blk"));
  EXPECT_THROW(ModuleIndex::Load(dir / "missing"), ImageError);
}

// The host's own modules.dep, when the machine has a kernel installed.
TEST(ModuleIndex, ResolvesGuestModulesOnRealHostKernel) {
  GuestKernel kernel;
  try {
    kernel = FindNewestHostKernel();
  } catch (const ImageError& e) {
    GTEST_SKIP() << "no host kernel: " << e.what();
  }
  ModuleIndex index = ModuleIndex::Load(kernel.modules_dir);
  ModulePlan plan = index.Resolve({"virtio_pci", "virtio_blk", "virtio_console", "nvme"});
  std::vector<std::string> names = Names(plan);
  auto pos = [&](const std::string& n) {
    return std::find(names.begin(), names.end(), n) - names.begin();
  };
  for (const char* wanted : {"virtio_pci", "virtio_blk", "virtio_console", "nvme"}) {
    bool loaded = pos(wanted) < static_cast<long>(names.size());
    bool builtin = index.IsBuiltin(wanted);
    EXPECT_TRUE(loaded || builtin) << wanted;
  }
  if (pos("nvme") < static_cast<long>(names.size()) &&
      pos("nvme_core") < static_cast<long>(names.size())) {
    EXPECT_LT(pos("nvme_core"), pos("nvme"));
  }
  for (const ModuleFile& m : plan.load_order) {
    EXPECT_TRUE(std::filesystem::exists(kernel.modules_dir + "/" + m.path)) << m.path;
  }
}

}  // namespace
}  // namespace storbed
