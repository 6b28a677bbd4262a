#include "results/manifest.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace storbed {
namespace {

class ManifestTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = ::testing::TempDir() + "/manifest-" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::filesystem::remove_all(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  nlohmann::json OnDisk() const {
    std::ifstream in(dir_ + "/manifest.json");
    return nlohmann::json::parse(in);
  }
  std::string dir_;
};

TEST_F(ManifestTest, TheFirstDocumentHasTheKeysEveryRunHasAndNoEndYet) {
  ResultsDir results(dir_);
  ManifestDoc doc;
  doc.session = "20240101T000000-1";
  doc.order = "random";
  doc.order_seed = 7;
  Manifest manifest(results, doc);
  const auto m = OnDisk();
  for (const char* key : {"host", "scenario_file", "scenario", "order", "plan", "session", "hosts",
                          "host_failures", "started_at", "machines"})
    EXPECT_TRUE(m.contains(key)) << key;
  EXPECT_EQ(m["order"], nlohmann::json({{"order", "random"}, {"seed", 7}}));
  for (const char* key : {"finished_at", "failures", "interrupted", "accel", "backing",
                          "guest_image", "bare_metal", "backing_copies"})
    EXPECT_FALSE(m.contains(key)) << key;
}

// The legacy twins: "backing" and "guest_image" are the first of "backings" and
// "guest_images" (scenario_disks_test and docs/results.md read them).
TEST_F(ManifestTest, TheFirstBackingAndImageAreAlsoWrittenUnderTheirLegacyNames) {
  ResultsDir results(dir_);
  Manifest manifest(results, {});
  manifest.AddBacking("64MiB", {.path = "/w/backing.raw",
                                .size_bytes = 64 << 20,
                                .how = "created",
                                .format = "raw",
                                .filesystem = "",
                                .null_co = false});
  manifest.AddBacking("16MiB", {.path = "/w/backing-1.raw",
                                .size_bytes = 16 << 20,
                                .how = "created",
                                .format = "raw",
                                .filesystem = "",
                                .null_co = false});
  manifest.AddBackingCopy("64MiB", "/w/backing-2.raw");
  ManifestImage image;
  image.content_hash = "abc";
  manifest.AddGuestImage("vmlinuz-6.1\n", image);
  const auto m = OnDisk();
  EXPECT_EQ(m["backing"]["path"], "/w/backing.raw");
  EXPECT_EQ(m["backings"].size(), 2u);
  EXPECT_EQ(m["backings"]["16MiB"]["size_bytes"], 16 << 20);
  EXPECT_EQ(m["backing_copies"],
            nlohmann::json::parse(R"([{"for": "64MiB", "path": "/w/backing-2.raw"}])"));
  EXPECT_EQ(m["guest_image"]["content_hash"], "abc");
  EXPECT_EQ(m["guest_images"]["vmlinuz-6.1\n"], m["guest_image"]);
}

TEST_F(ManifestTest, AHostFailureIsListedAndMarksItsHostFailed) {
  ResultsDir results(dir_);
  ManifestDoc doc;
  doc.hosts = nlohmann::json::parse(R"([{"name": "a", "status": "pending"},
                                        {"name": "b", "status": "pending"}])");
  Manifest manifest(results, doc);
  manifest.AddHostFailure({.host = "b",
                           .uri = "qemu+ssh://b/system",
                           .error = "gone",
                           .at = "t",
                           .moved_runs = {"001"}});
  const auto m = OnDisk();
  EXPECT_EQ(m["hosts"][0]["status"], "pending");
  EXPECT_EQ(m["hosts"][1]["status"], "failed");
  ASSERT_EQ(m["host_failures"].size(), 1u);
  EXPECT_EQ(m["host_failures"][0]["moved_runs"], nlohmann::json({"001"}));
}

TEST_F(ManifestTest, BareMetalUnitsAndTheEndAreWrittenAsTheyHappen) {
  ResultsDir results(dir_);
  Manifest manifest(results, {});
  ManifestBareMetal unit;
  unit.device = "/dev/loop3";
  unit.backing = "/w/backing.raw";
  unit.runs = {"003-bare-metal-seq"};
  unit.mount_dir = "/w/mnt-loop3";
  unit.mount_filesystem = "ext4";
  manifest.AddBareMetal(unit);
  manifest.MarkInterrupted();
  manifest.Finish("2024-01-01T00:00:00Z", {"003-bare-metal-seq: boom"}, nullptr);
  const auto m = OnDisk();
  ASSERT_EQ(m["bare_metal"].size(), 1u);
  EXPECT_EQ(m["bare_metal"][0]["loop_direct_io"], true);
  EXPECT_EQ(m["bare_metal"][0]["mount"]["options"], "rw,noatime");
  EXPECT_EQ(m["interrupted"], true);
  EXPECT_EQ(m["failures"].size(), 1u);
  EXPECT_EQ(m["finished_at"], "2024-01-01T00:00:00Z");
  EXPECT_EQ(manifest.Snapshot(), m);
}

}  // namespace
}  // namespace storbed

namespace storbed {
namespace {

TEST(ManifestUpdateMachineTest, MergesIntoTheEntryOrStartsOne) {
  const std::string dir = ::testing::TempDir() + "/manifest-update-machine";
  std::filesystem::remove_all(dir);
  {
    ResultsDir results(dir);
    Manifest manifest(results, {});
    manifest.SetMachine("nvme", {{"boot_s", 1.5}, {"image", {{"path", "/i"}, {"sha256", "aa"}}}});
    manifest.UpdateMachine("nvme", {{"image", {{"sha256_after", "aa"}, {"unchanged", true}}}});
    manifest.UpdateMachine("virtio-blk", {{"image", {{"path", "/j"}}}});  // never booted
    std::ifstream in(dir + "/manifest.json");
    const nlohmann::json m = nlohmann::json::parse(in)["machines"];
    EXPECT_EQ(m["nvme"]["boot_s"], 1.5);
    EXPECT_EQ(m["nvme"]["image"]["path"], "/i");
    EXPECT_EQ(m["nvme"]["image"]["sha256_after"], "aa");
    EXPECT_EQ(m["nvme"]["image"]["unchanged"], true);
    EXPECT_EQ(m["virtio-blk"]["image"]["path"], "/j");
  }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace storbed
