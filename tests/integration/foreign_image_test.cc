// A foreign guest end to end: the Debian 12 image scripts/make-debian-image.sh builds
// (cached by content hash in /var/cache/storbed/images, so only the first run on a machine
// downloads and builds it), booted with its own kernel under TCG, the agent pushed in
// through the image's qemu-guest-agent, a tiny job on virtio-blk and NVMe.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "backend/child_process.h"
#include "execute/foreign_image.h"
#include "results/results_dir.h"
#include "test_env.h"

namespace storbed {
namespace {

using testing::CliRun;
using testing::Slurp;

std::string Trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

// The image directory (built now or found in the cache); "" with *why when it cannot be.
std::string DebianImageDir(const std::string& scratch, std::string* why) {
  if (ProgramPath("mmdebstrap").empty()) {
    *why = "mmdebstrap is not installed (apt-get install mmdebstrap)";
    return "";
  }
  const std::string log = scratch + "/make-image.log";
  ChildProcess script = ChildProcess::Start(
      {std::string(STORBED_SOURCE_DIR) + "/scripts/make-debian-image.sh"}, log);
  // A first build downloads ~200 MB and installs a kernel: minutes; a cached one is instant.
  if (!script.WaitFor(std::chrono::minutes(30))) {
    script.Terminate(std::chrono::seconds(5));
    *why = "make-debian-image.sh did not finish in 30 min";
    return "";
  }
  const std::string out = Slurp(log);
  if (!script.ExitedSuccessfully()) {
    *why = "make-debian-image.sh " + script.ExitDescription() + ": " + out;
    return "";
  }
  // Its last line is the directory.
  std::string dir = Trimmed(out);
  dir = dir.substr(dir.rfind('\n') + 1);
  return dir;
}

TEST(ForeignImageTest, DebianImageWithQgaPushRunsOnVirtioBlkAndNvmeAndStaysUnchanged) {
  const std::string dir = testing::ScratchDir("foreign-image");
  std::string why;
  const std::string image_dir = DebianImageDir(dir, &why);
  ASSERT_FALSE(image_dir.empty()) << why;
  const std::string image = image_dir + "/debian12.qcow2";
  const std::string sha_before = FileSha256(image);

  const nlohmann::json scenario = {
      {"name", "foreign"},
      {"targets", {"virtio-blk", "nvme"}},
      {"machine",
       {{"memory", "1g"},
        {"accel", "tcg"},
        {"boot_timeout", 300},
        {"image", image},
        {"kernel", image_dir + "/vmlinuz"},
        {"initrd", image_dir + "/initrd.img"},
        {"append", Trimmed(Slurp(image_dir + "/append"))}}},
      {"disk", {{"size", "16m"}}},
      {"jobs",
       {{{"name", "rand"}, {"pattern", "random"}, {"bs", "4k"}, {"io_size", "2m"}}}}};
  std::ofstream(dir + "/scenario.json") << scenario.dump(2);
  const CliRun run = testing::RunCli({"run", dir + "/scenario.json", "--out", dir + "/out",
                                      "--agent", testing::AgentPath()},
                                     dir + "/cli.log");
  ASSERT_EQ(run.exit, "exited with status 0") << run.log;

  const auto records = LoadResults(dir + "/out");
  ASSERT_EQ(records.size(), 2u);
  for (const auto& r : records) {
    SCOPED_TRACE(r.run_id);
    EXPECT_EQ(r.status, RunStatus::Ok) << r.error;
    ASSERT_TRUE(r.result);
    EXPECT_GT(r.result->iops, 0);
    EXPECT_GT(r.result->mib_s, 0);
    EXPECT_GT(r.result->ios, 0u);
    EXPECT_EQ(r.accel, "tcg");
  }
  const auto manifest = nlohmann::json::parse(Slurp(dir + "/out/manifest.json"));
  for (const char* label : {"virtio-blk", "nvme"}) {
    SCOPED_TRACE(label);
    const nlohmann::json& m = manifest["machines"][label];
    EXPECT_EQ(m["agent_push"]["path"], "qga") << m.dump(2);
    EXPECT_GT(m["agent_push"]["bytes"].get<uint64_t>(), 0u);
    EXPECT_EQ(m["image"]["path"], image);
    EXPECT_EQ(m["image"]["format"], "qcow2");
    EXPECT_EQ(m["image"]["sha256"], sha_before);
    EXPECT_EQ(m["image"]["sha256_after"], sha_before);
    EXPECT_EQ(m["image"]["unchanged"], true);
    // The image's own kernel, not the host's: the release its build recorded.
    EXPECT_EQ(m["guest_kernel"], Trimmed(Slurp(image_dir + "/kernel-release")));
    const nlohmann::json& facts = m["guest_facts"];
    EXPECT_EQ(facts["os_version_id"], "12") << facts.dump();
    EXPECT_NE(facts["os_pretty_name"].get<std::string>().find("Debian"), std::string::npos);
    ASSERT_EQ(facts["benchmark_disks"].size(), 1u) << facts.dump();
    EXPECT_FALSE(facts["benchmark_disks"][0]["scheduler"].get<std::string>().empty());
    EXPECT_GT(facts["benchmark_disks"][0]["read_ahead_kb"].get<uint32_t>(), 0u);
  }
  EXPECT_EQ(FileSha256(image), sha_before);
  // The overlays lived in storbed's work directory and went with it.
  EXPECT_TRUE(testing::QemuPidsMentioning(dir).empty());
}

}  // namespace
}  // namespace storbed
