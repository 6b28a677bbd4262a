#include "execute/nocloud_seed.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "backend/child_process.h"
#include "execute/foreign_image.h"
#include "images/file_digest.h"

namespace storbed {
namespace {

namespace fs = std::filesystem;

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(NoCloudSeedTest, UserDataFindsTheAgentDiskBySerialAndChecksItsBytes) {
  const std::string text = NoCloudUserData(3729896, std::string(64, 'f'));
  EXPECT_EQ(text.rfind("#cloud-config\n", 0), 0u);
  EXPECT_NE(text.find("bootcmd:"), std::string::npos);
  EXPECT_NE(text.find("= \"storbed-agentbin\""), std::string::npos) << text;
  EXPECT_NE(text.find("head -c 3729896 \"$dev\" > /var/tmp/storbed-agent"), std::string::npos);
  EXPECT_NE(text.find(std::string(64, 'f') + "  /var/tmp/storbed-agent\" | sha256sum -c"),
            std::string::npos);
  EXPECT_NE(text.find("systemd-run --no-block"), std::string::npos);
  EXPECT_NE(text.find("--serve-port"), std::string::npos);
  EXPECT_EQ(NoCloudMetaData("m-1"), "instance-id: m-1\nlocal-hostname: storbed-guest\n");
}

TEST(NoCloudSeedTest, MakesACidataIsoAndAPaddedAgentDisk) {
  const std::string dir = ::testing::TempDir() + "/nocloud-seed";
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::string agent_bytes;
  for (int i = 0; i < 5000; ++i) agent_bytes += char(i * 13 + 1);
  std::ofstream(dir + "/agent", std::ios::binary) << agent_bytes;

  const NoCloudSeed seed = MakeNoCloudSeed(dir, dir + "/agent", "machine-abc");
  // The disk: the agent's bytes first, zeros up to whole 4 KiB blocks.
  const std::string disk = Slurp(seed.agent_disk);
  ASSERT_EQ(disk.size(), 8192u);
  EXPECT_EQ(disk.substr(0, 5000), agent_bytes);
  EXPECT_EQ(disk.substr(5000), std::string(8192 - 5000, '\0'));
  // The seed: what cloud-init's ds-identify looks for (blkid's label and type).
  ChildProcess blkid = ChildProcess::Start(
      {"/sbin/blkid", "-p", "-o", "export", seed.seed_image}, dir + "/blkid.out");
  ASSERT_TRUE(blkid.WaitFor(std::chrono::seconds(10)));
  const std::string probe = Slurp(dir + "/blkid.out");
  EXPECT_NE(probe.find("LABEL=cidata"), std::string::npos) << probe;
  EXPECT_NE(probe.find("TYPE=iso9660"), std::string::npos) << probe;
  // Both files are in it, as written (iso9660 stores them uncompressed).
  const std::string iso = Slurp(seed.seed_image);
  EXPECT_NE(iso.find("instance-id: machine-abc"), std::string::npos);
  EXPECT_NE(iso.find("head -c 5000 "), std::string::npos);
  EXPECT_NE(iso.find(FileSha256(dir + "/agent")), std::string::npos);
  EXPECT_FALSE(fs::exists(dir + "/nocloud"));  // the staging copy is gone
  fs::remove_all(dir);
}

TEST(NoCloudSeedTest, AMissingAgentIsNamed) {
  try {
    MakeNoCloudSeed(::testing::TempDir(), "/nonexistent/storbed-agent", "x");
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/storbed-agent"), std::string::npos);
  }
}

}  // namespace
}  // namespace storbed
