#include "block_tunables.h"

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "job_runner.h"
#include "temp_file_for_test.h"

namespace storbed {
namespace {

namespace fs = std::filesystem;

// A fake /sys: regular files stand in for the queue attributes of disk vda (partition
// vda1) as a fresh virtio disk shows them.
class FakeSysfs {
 public:
  FakeSysfs() {
    fs::create_directories(queue());
    fs::create_directories(dir_.path() + "/block/vda/vda1");
    Set("read_ahead_kb", "128\n");
    Set("scheduler", "[none] mq-deadline\n");
    Set("nr_requests", "256\n");
    Set("max_sectors_kb", "1280\n");
    Set("max_hw_sectors_kb", "2147483647\n");
  }
  std::string root() const { return dir_.path(); }
  std::string queue() const { return dir_.path() + "/block/vda/queue"; }
  void Set(const std::string& attr, const std::string& text) const {
    std::ofstream(queue() + "/" + attr) << text;
  }
  std::string Get(const std::string& attr) const {
    std::ifstream in(queue() + "/" + attr);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }

 private:
  TempDir dir_;
};

TEST(BlockTunableTest, WritesSetFieldsAndReadsAllBack) {
  FakeSysfs sys;
  std::vector<std::string> warnings;
  const BlockTunables applied = ApplyBlockTunables(
      "vda", {.read_ahead_kb = 0, .scheduler = "mq-deadline", .nr_requests = 64}, sys.root(),
      &warnings);
  EXPECT_EQ(sys.Get("read_ahead_kb"), "0");
  EXPECT_EQ(sys.Get("scheduler"), "mq-deadline");
  EXPECT_EQ(sys.Get("nr_requests"), "64");
  EXPECT_EQ(sys.Get("max_sectors_kb"), "1280\n") << "unset field written";
  EXPECT_EQ(applied.read_ahead_kb, 0);
  EXPECT_EQ(applied.scheduler, "mq-deadline");
  EXPECT_EQ(applied.nr_requests, 64);
  EXPECT_EQ(applied.max_sectors_kb, 1280);
  EXPECT_TRUE(warnings.empty());
}

TEST(BlockTunableTest, NothingWantedOnlyReadsBack) {
  FakeSysfs sys;
  const BlockTunables applied = ApplyBlockTunables("vda", {}, sys.root());
  EXPECT_EQ(applied.read_ahead_kb, 128);
  EXPECT_EQ(applied.scheduler, "none");
  EXPECT_EQ(applied.nr_requests, 256);
  EXPECT_EQ(applied.max_sectors_kb, 1280);
  EXPECT_EQ(sys.Get("read_ahead_kb"), "128\n");
}

TEST(BlockTunableTest, PartitionUsesItsDisksQueue) {
  FakeSysfs sys;
  const BlockTunables applied =
      ApplyBlockTunables("vda1", {.scheduler = "", .max_sectors_kb = 512}, sys.root());
  EXPECT_EQ(sys.Get("max_sectors_kb"), "512");
  EXPECT_EQ(applied.max_sectors_kb, 512);
  EXPECT_EQ(QueueDir("vda1", sys.root()), sys.queue());
  EXPECT_EQ(QueueDir("vdb", sys.root()), std::nullopt);
  EXPECT_THROW(ApplyBlockTunables("vdb", {}, sys.root()), JobError);
}

TEST(BlockTunableTest, MaxSectorsAboveHardwareLimitNamesBoth) {
  FakeSysfs sys;
  sys.Set("max_hw_sectors_kb", "1024\n");
  try {
    ApplyBlockTunables("vda", {.read_ahead_kb = 0, .scheduler = "", .max_sectors_kb = 4096}, sys.root());
    FAIL() << "expected JobError";
  } catch (const JobError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("max_sectors_kb to 4096"), std::string::npos) << what;
    EXPECT_NE(what.find("max_hw_sectors_kb 1024"), std::string::npos) << what;
  }
  EXPECT_EQ(sys.Get("max_sectors_kb"), "1280\n");
}

TEST(BlockTunableTest, FailedWriteNamesFileValueAndErrno) {
  FakeSysfs sys;
  fs::remove(sys.queue() + "/read_ahead_kb");
  try {
    ApplyBlockTunables("vda", {.read_ahead_kb = 16, .scheduler = ""}, sys.root());
    FAIL() << "expected JobError";
  } catch (const JobError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(sys.queue() + "/read_ahead_kb to 16"), std::string::npos) << what;
    EXPECT_NE(what.find("No such file or directory"), std::string::npos) << what;
  }
}

TEST(BlockTunableTest, RefusedNrRequestsIsAWarning) {
  FakeSysfs sys;
  // A directory cannot be opened for writing: stands in for the kernel's EINVAL.
  fs::remove(sys.queue() + "/nr_requests");
  fs::create_directory(sys.queue() + "/nr_requests");
  std::vector<std::string> warnings;
  const BlockTunables applied =
      ApplyBlockTunables("vda", {.scheduler = "mq-deadline", .nr_requests = 4096}, sys.root(),
                         &warnings);
  EXPECT_EQ(applied.scheduler, "mq-deadline");
  EXPECT_EQ(applied.nr_requests, -1);
  ASSERT_EQ(warnings.size(), 2u);
  EXPECT_NE(warnings[0].find("nr_requests to 4096"), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[1].find("cannot read back"), std::string::npos) << warnings[1];
}

TEST(BlockTunableTest, ActiveSchedulerIsTheBracketedOne) {
  EXPECT_EQ(ActiveScheduler("none [mq-deadline] kyber bfq\n"), "mq-deadline");
  EXPECT_EQ(ActiveScheduler("[none] mq-deadline\n"), "none");
  EXPECT_EQ(ActiveScheduler("none\n"), "none");
  EXPECT_EQ(ActiveScheduler(""), "");
}

}  // namespace
}  // namespace storbed
