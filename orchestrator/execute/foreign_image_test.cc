#include "execute/foreign_image.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "backend/child_process.h"
#include "images/file_digest.h"

namespace storbed {
namespace {

namespace fs = std::filesystem;

struct ForeignImageTest : ::testing::Test {
  std::string dir;
  void SetUp() override {
    dir = ::testing::TempDir() + "/foreign-image-" +
          ::testing::UnitTest::GetInstance()->current_test_info()->name();
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  void TearDown() override { fs::remove_all(dir); }
  std::string Write(const std::string& name, const std::string& bytes) {
    std::ofstream(dir + "/" + name, std::ios::binary) << bytes;
    return dir + "/" + name;
  }
};

TEST_F(ForeignImageTest, FormatFromTheQcow2Magic) {
  EXPECT_EQ(ForeignImageFormat(Write("a.qcow2", std::string("QFI\xfb", 4) + "rest")), "qcow2");
  EXPECT_EQ(ForeignImageFormat(Write("a.img", std::string(4096, '\0'))), "raw");
  EXPECT_EQ(ForeignImageFormat(Write("tiny", "Q")), "raw");
  EXPECT_THROW(ForeignImageFormat(dir + "/missing"), std::runtime_error);
}

TEST_F(ForeignImageTest, FileSha256MatchesKnownDigestsAcrossPieces) {
  EXPECT_EQ(FileSha256(Write("abc", "abc")),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  // Over 1 MiB, so it is hashed in more than one piece: a million 'a' (FIPS 180-2 vector).
  EXPECT_EQ(FileSha256(Write("million", std::string(1000000, 'a'))),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  EXPECT_EQ(FileSha256(Write("big", std::string(3 << 20, 'x'))),
            FileSha256(Write("big2", std::string(3 << 20, 'x'))));
}

TEST_F(ForeignImageTest, MachineProblemsNameTheField) {
  MachineConfig m;
  EXPECT_EQ(ForeignMachineProblem(m), "");
  m.append = "root=/dev/vda";
  EXPECT_EQ(ForeignMachineProblem(m).rfind("machine.append: is only for a foreign image", 0), 0u);
  m.append = "";
  m.image = dir + "/missing.qcow2";
  EXPECT_EQ(ForeignMachineProblem(m).rfind("machine.image: " + m.image + " cannot be read", 0), 0u)
      << ForeignMachineProblem(m);
  m.image = Write("img.raw", std::string(512, '\0'));
  EXPECT_EQ(ForeignMachineProblem(m).rfind("machine.kernel: a foreign image boots its own kernel", 0),
            0u);
  m.kernel = kBootFromDisk;
  EXPECT_EQ(ForeignMachineProblem(m), "");
  m.append = "quiet";
  EXPECT_EQ(ForeignMachineProblem(m).rfind("machine.kernel: \"disk\"", 0), 0u);
  m.kernel = Write("notakernel", "hello");
  EXPECT_EQ(ForeignMachineProblem(m).rfind("machine.kernel: " + m.kernel, 0), 0u)
      << ForeignMachineProblem(m);
}

TEST_F(ForeignImageTest, OverlayLeavesTheImageAsItWas) {
  if (ProgramPath("qemu-img").empty()) GTEST_SKIP() << "qemu-img not installed";
  const std::string image = Write("base.raw", std::string(1 << 20, 'b'));
  const std::string before = FileSha256(image);
  const std::string overlay = dir + "/overlay.qcow2";
  CreateOverlay(image, "raw", overlay);
  EXPECT_EQ(ForeignImageFormat(overlay), "qcow2");
  EXPECT_EQ(FileSha256(image), before);
  // A wrong format is qemu-img's error, passed on with its words.
  try {
    CreateOverlay(dir + "/missing.raw", "raw", dir + "/o2.qcow2");
    FAIL() << "an overlay on a missing image was made";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("qemu-img create"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace storbed
