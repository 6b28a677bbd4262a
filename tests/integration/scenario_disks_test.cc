// `storbed run` on the disk kinds of a scenario: a filesystem target on virtio-scsi and
// bare metal (the file inside an ext4 image), and a null-co disk whose QEMU block layer
// latency is at least the latency null-co was given.
#include <gtest/gtest.h>

#include <fstream>

#include "results/results_dir.h"
#include "test_env.h"

namespace storbed {
namespace scenario_disks_test {  // named, not anonymous: a unity build joins files

using testing::Slurp;

// Runs `storbed run` on `scenario` in a scratch dir; returns the results dir.
std::string RunScenario(const std::string& name, const std::string& scenario) {
  const std::string dir = testing::ScratchDir(name);
  std::ofstream(dir + "/scenario.json") << scenario;
  const testing::CliRun cli =
      testing::RunCli({"run", dir + "/scenario.json", "--out", dir + "/out", "--image-cache",
                       testing::ImageCacheDir()},
                      dir + "/cli.log");
  EXPECT_EQ(cli.exit, "exited with status 0") << cli.log;
  return dir + "/out";
}

TEST(ScenarioDisksTest, Ext4TargetRunsOnTheFileInTheGuestAndOnBareMetal) {
  std::string why;
  if (testing::SharedGuestImage(&why).kernel_path.empty()) GTEST_SKIP() << why;
  if (geteuid() != 0) GTEST_SKIP() << "bare metal mounts the image: needs root";
  const std::string out = RunScenario("disks-ext4", R"({
    "name": "itest-ext4", "targets": ["virtio-scsi", "bare-metal"],
    "machine": {"memory": "512m"}, "disk": {"size": "64m", "filesystem": "ext4"},
    "jobs": [{"name": "buffered", "rw": "read", "bs": "64k", "direct": false, "runtime": 1}]})");
  const auto records = LoadResults(out);
  ASSERT_EQ(records.size(), 2u);
  for (const auto& r : records) {
    SCOPED_TRACE(r.run_id);
    EXPECT_EQ(r.status, RunStatus::Ok) << r.error;
    ASSERT_TRUE(r.result);
    EXPECT_GT(r.result->mib_s, 0);
    // Both run on the test file, not on the device holding the filesystem.
    EXPECT_EQ(r.result->target.substr(r.result->target.rfind('/') + 1), "storbed.dat");
  }
  EXPECT_EQ(records[0].target, "virtio-scsi");
  EXPECT_EQ(records[0].result->target.rfind("/mnt/storbed/", 0), 0u) << records[0].result->target;
  const auto manifest = nlohmann::json::parse(Slurp(out + "/manifest.json"));
  EXPECT_EQ(manifest["backing"]["filesystem"], "ext4");
  ASSERT_EQ(manifest["bare_metal"].size(), 1u);
  EXPECT_EQ(manifest["bare_metal"][0]["mount"]["filesystem"], "ext4");
  EXPECT_EQ(manifest["bare_metal"][0]["runs"].size(), 1u);
}

TEST(ScenarioDisksTest, NullCoLatencyShowsInTheQemuBlockLayer) {
  std::string why;
  if (testing::SharedGuestImage(&why).kernel_path.empty()) GTEST_SKIP() << why;
  const std::string out = RunScenario("disks-null-co", R"({
    "name": "itest-null", "targets": ["virtio-blk"],
    "machine": {"memory": "512m"},
    "disk": {"size": "64m", "driver": "null-co", "null_latency": "100us"},
    "jobs": [{"name": "rand", "pattern": "random", "bs": "4k", "runtime": 1}]})");
  const auto records = LoadResults(out);
  ASSERT_EQ(records.size(), 1u);
  const RunRecord& r = records[0];
  EXPECT_EQ(r.status, RunStatus::Ok) << r.error;
  ASSERT_TRUE(r.ladder);
  const LayerStats* qemu = nullptr;
  for (const auto& l : r.ladder->layers)
    if (l.layer == kLayerQemuBlock) qemu = &l;
  ASSERT_NE(qemu, nullptr);
  ASSERT_TRUE(qemu->available) << qemu->reason;
  ASSERT_TRUE(qemu->has_latency);
  EXPECT_GE(qemu->mean_latency_us, 100.0);
}

}  // namespace scenario_disks_test
}  // namespace storbed
