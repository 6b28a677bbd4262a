// A foreign guest end to end: the Debian 12 image scripts/make-debian-image.sh --cloud-init
// builds (cached by content hash in /var/cache/storbed/images, so only the first run on a
// machine downloads and builds it), booted with its own kernel under TCG, the agent pushed
// in through the image's qemu-guest-agent or through cloud-init, a tiny job on virtio-blk
// and NVMe; and an image that lets neither in.
#include "execute/foreign_image.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "backend/child_process.h"
#include "debian_image.h"
#include "images/file_digest.h"
#include "results/results_dir.h"
#include "test_env.h"

namespace storbed {
namespace foreign_image_test {  // named, not anonymous: a unity build joins files

using testing::CliRun;
using testing::Slurp;

using testing::TrimmedLine;

// The Debian image with qemu-guest-agent and cloud-init, or a variant derived from it.
std::string DebianImageDir(const std::string& scratch, std::string* why,
                           const std::vector<std::string>& variant = {}) {
  return testing::CachedDebianImageDir(scratch, {"--cloud-init"}, why, variant);
}

// `storbed run` of ForeignImageScenario in `dir`, checked (testing::RunForeignScenario).
nlohmann::json RunForeign(const std::string& dir, const std::string& image_dir,
                          const std::string& push, const std::vector<std::string>& targets) {
  return testing::RunForeignScenario(
      dir, testing::ForeignImageScenario("foreign", image_dir, push, targets), targets);
}

// The image with cloud-init switched off: qemu-ga is the only way in, and the boot skips
// cloud-init's four stages, which cost 12 s of a 34 s boot under TCG here (its own way in is
// the next test's).
TEST(ForeignImageTest, DebianImageWithQgaPushRunsOnVirtioBlkAndNvmeAndStaysUnchanged) {
  const std::string dir = testing::ScratchDir("foreign-image");
  std::string why;
  const std::string image_dir = DebianImageDir(dir, &why, {"--disable-cloud-init"});
  ASSERT_FALSE(image_dir.empty()) << why;
  const std::string image = image_dir + "/debian12.qcow2";
  const std::string sha_before = FileSha256(image);

  const auto manifest = RunForeign(dir, image_dir, "qga", {"virtio-blk", "nvme"});
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
    EXPECT_EQ(m["guest_kernel"], TrimmedLine(Slurp(image_dir + "/kernel-release")));
    const nlohmann::json& facts = m["guest_facts"];
    EXPECT_EQ(facts["os_version_id"], "12") << facts.dump();
    EXPECT_NE(facts["os_pretty_name"].get<std::string>().find("Debian"), std::string::npos);
    ASSERT_EQ(facts["benchmark_disks"].size(), 1u) << facts.dump();
    EXPECT_FALSE(facts["benchmark_disks"][0]["scheduler"].get<std::string>().empty());
    EXPECT_GT(facts["benchmark_disks"][0]["read_ahead_kb"].get<uint32_t>(), 0u);
    // Debian 12 ships no udev rule or tuned profile that tunes block queues.
    EXPECT_TRUE(facts["queue_rules"].empty()) << facts.dump();
    EXPECT_EQ(facts["tuned_profile"], "");
    EXPECT_EQ(facts["queue_settings_from"].get<std::string>().rfind("the kernel's defaults", 0), 0u);
  }
  EXPECT_EQ(FileSha256(image), sha_before);
  // The overlays lived in storbed's work directory and went with it.
  EXPECT_TRUE(testing::QemuPidsMentioning(dir).empty());
}

// The image's qemu-ga refuses guest-exec (block-rpcs in /etc/qemu/qemu-ga.conf): under
// agent_push auto, cloud-init reads storbed's NoCloud seed and starts the agent instead
// (the choice itself, blocked qemu-ga first or cloud-init first, is in agent_entry_test).
TEST(ForeignImageTest, BlockedGuestExecFallsBackToCloudInitOnVirtioBlkAndNvme) {
  const std::string dir = testing::ScratchDir("foreign-cloud-init");
  std::string why;
  // Also a udev rule of the guest's own that sets read-ahead, for guest_facts to name.
  const std::string image_dir =
      DebianImageDir(dir, &why, {"--block-guest-exec", "--udev-read-ahead", "512"});
  ASSERT_FALSE(image_dir.empty()) << why;
  const std::string sha_before = FileSha256(image_dir + "/debian12.qcow2");
  const auto manifest = RunForeign(dir, image_dir, "auto", {"virtio-blk", "nvme"});
  for (const char* label : {"virtio-blk", "nvme"}) {
    SCOPED_TRACE(label);
    const nlohmann::json& push = manifest["machines"][label]["agent_push"];
    EXPECT_EQ(push["path"], "cloud-init") << push.dump(2);
    // Why not qemu-ga: it blocks guest-exec, or cloud-init (early in the boot) was quicker
    // than qemu-ga's first answer; both happen under TCG.
    const std::string not_qga = push.value("not_qga", std::string());
    EXPECT_TRUE(not_qga.find("blocks guest-exec") != std::string::npos ||
                not_qga.find("before qemu-ga answered") != std::string::npos)
        << push.dump(2);
    EXPECT_GT(push["agent_up_s"].get<double>(), 0);
    EXPECT_EQ(manifest["machines"][label]["image"]["unchanged"], true);
    // What the guest's OS set before any job: its udev rule's read-ahead, and the rule.
    const nlohmann::json& facts = manifest["machines"][label]["guest_facts"];
    ASSERT_EQ(facts["benchmark_disks"].size(), 1u) << facts.dump();
    EXPECT_EQ(facts["benchmark_disks"][0]["read_ahead_kb"], 512) << facts.dump();
    ASSERT_EQ(facts["queue_rules"].size(), 1u) << facts.dump();
    EXPECT_EQ(facts["queue_rules"][0]["file"], "/etc/udev/rules.d/60-storbed-read-ahead.rules");
    EXPECT_NE(facts["queue_settings_from"].get<std::string>().find(
                  "udev rule /etc/udev/rules.d/60-storbed-read-ahead.rules:1"),
              std::string::npos)
        << facts.dump();
  }
  EXPECT_EQ(FileSha256(image_dir + "/debian12.qcow2"), sha_before);
  EXPECT_TRUE(testing::QemuPidsMentioning(dir).empty());
}

// guest-exec blocked and cloud-init switched off (/etc/cloud/cloud-init.disabled): no way
// in. The run fails as soon as qemu-ga has answered, naming both ways, not at the boot
// timeout.
TEST(ForeignImageTest, NeitherWayInFailsWithinAMinuteNamingBoth) {
  const std::string dir = testing::ScratchDir("foreign-no-way");
  std::string why;
  const std::string image_dir =
      DebianImageDir(dir, &why, {"--block-guest-exec", "--disable-cloud-init"});
  ASSERT_FALSE(image_dir.empty()) << why;
  std::ofstream(dir + "/scenario.json")
      << testing::ForeignImageScenario("foreign", image_dir, "auto", {"virtio-blk"}).dump(2);
  const auto start = std::chrono::steady_clock::now();
  const CliRun run = testing::RunCli({"run", dir + "/scenario.json", "--out", dir + "/out",
                                      "--agent", testing::AgentPath()},
                                     dir + "/cli.log");
  const double took =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_NE(run.exit, "exited with status 0") << run.log;
  const auto records = LoadResults(dir + "/out");
  ASSERT_EQ(records.size(), 1u) << run.log;
  const std::string& error = records[0].error;
  EXPECT_EQ(records[0].status, RunStatus::Failed);
  EXPECT_NE(error.find("blocks guest-exec"), std::string::npos) << error;
  EXPECT_NE(error.find("/etc/cloud/cloud-init.disabled exists"), std::string::npos) << error;
  EXPECT_NE(error.find("(a) the image's qemu-guest-agent"), std::string::npos) << error;
  EXPECT_NE(error.find("(b) cloud-init"), std::string::npos) << error;
  // "after N s" counts from QEMU's start; the boot itself takes ~30-45 s here under TCG.
  const size_t at = error.find("after ");
  ASSERT_NE(at, std::string::npos) << error;
  EXPECT_LE(std::stoi(error.substr(at + 6)), 90) << error;
  EXPECT_LT(took, 200) << "the boot timeout is 300 s: the failure must not wait for it";
  EXPECT_TRUE(testing::QemuPidsMentioning(dir).empty());
}

}  // namespace foreign_image_test
}  // namespace storbed
