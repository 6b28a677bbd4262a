#include "target_device.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>

#include <gtest/gtest.h>

#include "job_runner.h"
#include "temp_file_for_test.h"
#include "unique_fd.h"

namespace storbed {
namespace target_device_test {  // named, not anonymous: a unity build joins files

class FakeSysfs : public SysfsReader {
 public:
  std::optional<std::string> ReadFile(const std::string& path) const override {
    auto it = files.find(path);
    return it == files.end() ? std::nullopt : std::optional(it->second);
  }
  std::optional<std::string> ReadLink(const std::string& path) const override {
    auto it = links.find(path);
    return it == links.end() ? std::nullopt : std::optional(it->second);
  }
  std::map<std::string, std::string> files, links;
};

std::string DevDir(const std::string& file) {
  struct stat st;
  EXPECT_EQ(stat(file.c_str(), &st), 0);
  return "/sys/dev/block/" + std::to_string(major(st.st_dev)) + ":" +
         std::to_string(minor(st.st_dev));
}

TEST(TargetDeviceTest, ParsesDevnameFromUevent) {
  EXPECT_EQ(ParseUeventDevname("MAJOR=254\nMINOR=0\nDEVNAME=vda\nDEVTYPE=disk\n"), "vda");
  EXPECT_EQ(ParseUeventDevname("MAJOR=254\nMINOR=0\n"), std::nullopt);
}

TEST(TargetDeviceTest, RegularFileUsesItsFilesystemsDevice) {
  TempDir dir;
  const std::string file = WriteDataFile(dir.path(), "f", 4096);
  FakeSysfs sys;
  sys.files[DevDir(file) + "/uevent"] = "MAJOR=8\nDEVNAME=sdz3\n";
  const TargetDevice dev = ResolveTargetDevice(file, sys);
  ASSERT_TRUE(dev.name) << dev.reason;
  EXPECT_EQ(*dev.name, "sdz3");
}

TEST(TargetDeviceTest, FallsBackToTheSymlinkName) {
  TempDir dir;
  const std::string file = WriteDataFile(dir.path(), "f", 4096);
  FakeSysfs sys;
  sys.links[DevDir(file)] = "../../devices/virtual/block/dm-2";
  EXPECT_EQ(ResolveTargetDevice(file, sys).name, "dm-2");
}

TEST(TargetDeviceTest, NoSysfsEntryGivesAReason) {
  TempDir dir;
  const std::string file = WriteDataFile(dir.path(), "f", 4096);
  const TargetDevice dev = ResolveTargetDevice(file, FakeSysfs{});
  EXPECT_FALSE(dev.name);
  EXPECT_NE(dev.reason.find("/sys/dev/block"), std::string::npos) << dev.reason;
}

TEST(TargetDeviceTest, RealFileUnderVarTmpHasADevice) {
  TempDir dir;
  const std::string file = WriteDataFile(dir.path(), "f", 4096);
  const TargetDevice dev = ResolveTargetDevice(file);
  if (dev.major == 0) GTEST_SKIP() << "/var/tmp is not on a block device here: " << dev.reason;
  ASSERT_TRUE(dev.name) << dev.reason;
  EXPECT_FALSE(dev.name->empty());
}

TEST(TargetDeviceTest, AnonymousDeviceHasNoBlockDevice) {
  // /proc is on an anonymous device (major 0) everywhere.
  const TargetDevice dev = ResolveTargetDevice("/proc/self/stat");
  EXPECT_FALSE(dev.name);
  EXPECT_EQ(dev.major, 0u);
  EXPECT_NE(dev.reason.find("anonymous device"), std::string::npos) << dev.reason;
}

TEST(TargetDeviceTest, MissingPathGivesAReason) {
  const TargetDevice dev = ResolveTargetDevice("/nonexistent/storbed");
  EXPECT_FALSE(dev.name);
  EXPECT_NE(dev.reason.find("No such file"), std::string::npos) << dev.reason;
}

TEST(TargetDeviceTest, BlockDeviceUsesItsOwnNumber) {
  const char* disk = "/dev/vda";
  struct stat st;
  if (stat(disk, &st) != 0 || !S_ISBLK(st.st_mode)) GTEST_SKIP() << "no " << disk;
  const TargetDevice dev = ResolveTargetDevice(disk);
  EXPECT_EQ(dev.major, major(st.st_rdev));
  EXPECT_EQ(dev.name, "vda") << dev.reason;
  UniqueFd fd(open(disk, O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) GTEST_SKIP() << "cannot open " << disk << ": " << std::strerror(errno);
  EXPECT_GT(TargetSize(fd.get(), disk), 0u);
}

TEST(TargetDeviceTest, SizeOfAFile) {
  TempDir dir;
  const std::string file = WriteDataFile(dir.path(), "f", 12345);
  UniqueFd fd(open(file.c_str(), O_RDONLY | O_CLOEXEC));
  EXPECT_EQ(TargetSize(fd.get(), file), 12345u);
}

TEST(TargetDeviceTest, FindsHolesOnlyWhereThereAreSome) {
  TempDir dir;
  const std::string full = WriteDataFile(dir.path(), "full", 1 << 20);
  UniqueFd f(open(full.c_str(), O_RDONLY | O_CLOEXEC));
  EXPECT_EQ(FirstHole(f.get(), 0, 1 << 20), std::nullopt);

  const std::string sparse = dir.path() + "/sparse";
  UniqueFd s(open(sparse.c_str(), O_CREAT | O_RDWR | O_CLOEXEC, 0600));
  ASSERT_EQ(ftruncate(s.get(), 1 << 20), 0);
  ASSERT_EQ(pwrite(s.get(), "x", 1, 0), 1);
  fsync(s.get());
  const auto hole = FirstHole(s.get(), 0, 1 << 20);
  if (!hole) GTEST_SKIP() << "filesystem under /var/tmp does not report holes";
  EXPECT_GT(*hole, 0u);
  EXPECT_LT(*hole, uint64_t(1) << 20);
}

}  // namespace target_device_test
}  // namespace storbed
