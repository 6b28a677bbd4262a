#include "fs_mount.h"

#include <gtest/gtest.h>

#include <vector>

namespace storbed::agent {
namespace {

struct FakeSystem {
  std::string mounts;
  std::vector<std::string> calls;
  MountOps Ops() {
    MountOps ops;
    ops.read_mounts = [this] { return mounts; };
    ops.make_dirs = [this](const std::string& d) { calls.push_back("mkdir " + d); };
    ops.mount = [this](const std::string& dev, const std::string& dir, const std::string& type) {
      calls.push_back("mount " + type + " " + dev + " " + dir);
      mounts += dev + " " + dir + " " + type + " rw 0 0\n";
    };
    return ops;
  }
};

JobSpec FsJob() {
  JobSpec job;
  job.name = "j";
  job.target = "/dev/vdb";
  job.filesystem = "ext4";
  job.fs_file = "data/storbed.dat";
  return job;
}

TEST(FsMountTest, RawJobsAreUntouched) {
  FakeSystem sys;
  JobSpec job = FsJob();
  job.filesystem.clear();
  EXPECT_EQ(MountFilesystemTarget(job, sys.Ops()).target, "/dev/vdb");
  EXPECT_TRUE(sys.calls.empty());
}

TEST(FsMountTest, MountsOnceThenReusesTheMount) {
  FakeSystem sys;
  sys.mounts = "proc /proc proc rw 0 0\n";
  const JobSpec out = MountFilesystemTarget(FsJob(), sys.Ops());
  EXPECT_EQ(out.target, "/mnt/storbed/vdb/data/storbed.dat");
  EXPECT_TRUE(out.filesystem.empty());
  EXPECT_EQ(sys.calls, (std::vector<std::string>{"mkdir /mnt/storbed/vdb",
                                                 "mount ext4 /dev/vdb /mnt/storbed/vdb"}));
  MountFilesystemTarget(FsJob(), sys.Ops());
  EXPECT_EQ(sys.calls.size(), 2u);  // second job: already mounted, no new mount
}

TEST(FsMountTest, AnotherTypeAtTheMountPointIsAnError) {
  FakeSystem sys;
  sys.mounts = "/dev/vdb /mnt/storbed/vdb xfs rw 0 0\n";
  try {
    MountFilesystemTarget(FsJob(), sys.Ops());
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_STREQ(e.what(), "/mnt/storbed/vdb already holds xfs on /dev/vdb, not ext4 on /dev/vdb");
  }
}

TEST(FsMountTest, DeviceMountedElsewhereIsAnError) {
  FakeSystem sys;
  sys.mounts = "/dev/vdb /srv ext4 rw 0 0\n";
  EXPECT_THROW(MountFilesystemTarget(FsJob(), sys.Ops()), std::runtime_error);
}

TEST(FsMountTest, MountFailureSaysWhatToCheck) {
  FakeSystem sys;
  MountOps ops = sys.Ops();
  ops.mount = [](const std::string&, const std::string&, const std::string&) {
    throw std::runtime_error("mount -t ext4 /dev/vdb /mnt/storbed/vdb: No such device");
  };
  try {
    MountFilesystemTarget(FsJob(), ops);
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("is the ext4 module in the image"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace storbed::agent
