#include "job_trace.h"

#include <gtest/gtest.h>

#include <map>

#include "job_runner.h"

namespace storbed {
namespace job_trace_test {  // named, not anonymous: a unity build joins files

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

TEST(JobTrace, OnlyDirectIoOnABlockDeviceIsTraceable) {
  JobSpec spec;
  spec.trace = true;
  EXPECT_EQ(WhyNotTraceable(spec, true), "");
  EXPECT_NE(WhyNotTraceable(spec, false).find("block device"), std::string::npos);
  spec.direct = false;
  EXPECT_NE(WhyNotTraceable(spec, true).find("direct=true"), std::string::npos);
  spec.direct = true;
  spec.engine = Engine::Mmap;
  EXPECT_NE(WhyNotTraceable(spec, true).find("mmap"), std::string::npos);
  spec.engine = Engine::IoUring;
  spec.filesystem = "ext4";
  EXPECT_NE(WhyNotTraceable(spec, true).find("filesystem"), std::string::npos);
  spec.trace = false;
  EXPECT_EQ(WhyNotTraceable(spec, false), "");
}

TEST(JobTrace, APartitionIsTracedOnItsDiskFromItsStart) {
  FakeSysfs sys;
  sys.files["/sys/dev/block/254:1/partition"] = "1\n";
  sys.files["/sys/dev/block/254:1/start"] = "2048\n";
  sys.links["/sys/dev/block/254:1"] = "../../devices/pci0000:00/0000:00:04.0/virtio1/block/vda/vda1";
  sys.files["/sys/class/block/vda/dev"] = "254:0\n";
  const TracedDisk d = TracedDiskOf({.name = "vda1", .reason = "", .major = 254, .minor = 1}, sys);
  EXPECT_EQ(d.name, "vda");
  EXPECT_EQ(d.major, 254u);
  EXPECT_EQ(d.minor, 0u);
  EXPECT_EQ(d.first_sector, 2048u);
  const TracedDisk whole = TracedDiskOf({.name = "vda", .reason = "", .major = 254, .minor = 0}, sys);
  EXPECT_EQ(whole.name, "vda");
  EXPECT_EQ(whole.first_sector, 0u);
  EXPECT_THROW(TracedDiskOf({.name = std::nullopt, .reason = "tmpfs", .major = 0, .minor = 0}, sys),
               JobError);
}

BlockEvent Ev(BlockEventKind kind, uint64_t t_ns, uint64_t sector) {
  BlockEvent e;
  e.kind = kind;
  e.time_ns = t_ns;
  e.major = 7;
  e.minor = 3;
  e.sector = sector;
  e.sectors = 8;
  e.data = true;
  return e;
}

// The threads' logs are merged in submission order and their offsets taken on the disk
// from the target's first sector; a capture that lost events stays incomplete.
TEST(JobTrace, ThreadsLogsAreJoinedInSubmissionOrderOnTheDisksSectors) {
  IoLog a(10), b(1);
  a.Add({4096, 4096, false, 1990000, 2000000, 2090000});
  b.Add({0, 4096, false, 1000000, 1000000, 1090000});
  b.Add({8192, 4096, false, 3000000, 3000000, 3090000});  // over b's cap: counted, not logged
  BlockTraceCapture capture;
  for (int k = 0; k < kBlockEventKinds; ++k) {
    capture.events.push_back(Ev(BlockEventKind(k), 1001000 + k * 1000, 100));
    capture.events.push_back(Ev(BlockEventKind(k), 2001000 + k * 1000, 108));
  }
  capture.lost_events = 2;
  capture.complete = false;
  capture.why_incomplete = "2 events lost";
  const JobTraceOutcome out = JoinJobTrace({&a, &b}, capture, {"loop3", 7, 3, 100}, "host block layer");
  ASSERT_EQ(out.ios.size(), 2u);
  EXPECT_EQ(out.ios[0].offset, 0u);
  EXPECT_EQ(out.ios[1].queued_ns, 1990000u);
  EXPECT_EQ(out.ios[0].state, JoinState::Joined);
  EXPECT_EQ(out.ios[1].block.At(BlockEventKind::RqIssue), 2004000u);
  EXPECT_EQ(out.summary.joined, 2u);
  EXPECT_EQ(out.summary.not_logged, 1u);
  EXPECT_EQ(out.summary.log_cap, 11u);
  EXPECT_EQ(out.summary.layer, "host block layer");
  EXPECT_EQ(out.summary.first_sector, 100u);
  EXPECT_FALSE(out.summary.complete);
  EXPECT_EQ(out.summary.lost_events, 2u);
}

}  // namespace job_trace_test
}  // namespace storbed
