// Filesystem targets in a real TCG guest: ext4 and xfs images prepared on the host with
// the test file laid out (no host mount), mounted by the agent, jobs run on the file.
#include <gtest/gtest.h>

#include <memory>

#include "backend/backend_qemu.h"
#include "execute/backing.h"
#include "images/filesystem_image.h"
#include "test_env.h"

namespace storbed {
namespace filesystem_target_test {  // named, not anonymous: a unity build joins files

constexpr uint64_t kFileBytes = 16 << 20;

class FilesystemTargetTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    std::string why;
    const GuestImage image =
        testing::SharedGuestImage(&why, GuestModulesOf({Bus::VirtioBlk}, {"ext4", "xfs"}));
    if (image.kernel_path.empty()) return;
    dir_ = testing::ScratchDir("fs-target");
    auto fill = [](const std::string& path, uint64_t bytes) { CreateFilledBacking(path, bytes); };
    MachineSpec spec = testing::TestGuestSpec("itest-fs", image, dir_ + "/machine");
    for (const std::string type : {"ext4", "xfs"}) {
      CreateFilesystemImage({.image_path = dir_ + "/" + type + ".img",
                             .type = type,
                             .image_bytes = MinimumImageBytes(type, kFileBytes),
                             .file = "storbed.dat",
                             .file_bytes = kFileBytes,
                             .fill = fill});
      DiskSpec disk;
      disk.id = type;
      disk.backing = dir_ + "/" + type + ".img";
      disk.serial = "fs-" + type;
      spec.disks.push_back(disk);
    }
    QemuBackend backend;
    machine_ = backend.Start(spec, std::chrono::seconds(180)).release();
  }
  static void TearDownTestSuite() {
    if (machine_) machine_->Shutdown();
    delete machine_;
    machine_ = nullptr;
  }

  std::string DeviceWithSerial(const std::string& serial) {
    for (const auto& d : machine_->Hello().devices)
      if (d.serial == serial) return d.path;
    return "";
  }

  Message Run(JobSpec job) {
    return machine_->Agent().Call(RunRequest{job}, std::chrono::minutes(5),
                                  [] { machine_->CheckAlive(); });
  }

  static inline std::string dir_;
  static inline Machine* machine_ = nullptr;
};

class FilesystemTypeTest : public FilesystemTargetTest,
                           public ::testing::WithParamInterface<std::string> {};

TEST_P(FilesystemTypeTest, JobsRunOnTheFileInsideTheMountedFilesystem) {
  if (!machine_) GTEST_SKIP() << "no guest kernel installed";
  const std::string type = GetParam();
  const std::string device = DeviceWithSerial("fs-" + type);
  ASSERT_FALSE(device.empty());
  for (const bool direct : {false, true}) {
    JobSpec job;
    job.name = type + (direct ? "-direct" : "-buffered");
    job.target = device;
    job.filesystem = type;
    job.bs = 64 << 10;
    job.direct = direct;
    const Message reply = Run(job);
    if (const auto* e = std::get_if<ErrorReply>(&reply)) FAIL() << e->message;
    const JobResult& r = std::get<ResultReply>(reply).result;
    EXPECT_EQ(r.target, "/mnt/storbed/" + device.substr(device.rfind('/') + 1) + "/storbed.dat");
    // One pass over the whole file, read from the disk under the filesystem.
    EXPECT_EQ(r.bytes, kFileBytes) << job.name;
    ASSERT_TRUE(r.block.available) << r.block.reason;
    EXPECT_GE(r.block.read_bytes, kFileBytes) << job.name;
  }
}

INSTANTIATE_TEST_SUITE_P(Types, FilesystemTypeTest, ::testing::Values("ext4", "xfs"));

TEST_F(FilesystemTargetTest, WrongTypeIsAClearError) {
  if (!machine_) GTEST_SKIP() << "no guest kernel installed";
  JobSpec job;
  job.name = "wrong";
  job.target = DeviceWithSerial("fs-ext4");
  job.filesystem = "xfs";
  const Message reply = Run(job);
  const auto* e = std::get_if<ErrorReply>(&reply);
  ASSERT_NE(e, nullptr);
  EXPECT_NE(e->message.find("xfs"), std::string::npos) << e->message;
}

}  // namespace filesystem_target_test
}  // namespace storbed
