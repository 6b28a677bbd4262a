#include "analysis/durability.h"

#include <gtest/gtest.h>

namespace storbed {
namespace {

JobSpec WriteJob(uint32_t fsync_every, bool end_fsync) {
  JobSpec s;
  s.name = "randwrite-fsync";
  s.rw = Direction::Write;
  s.fsync_every = fsync_every;
  s.end_fsync = end_fsync;
  return s;
}

JobResult Wrote(uint64_t ios, uint64_t fsyncs) {
  JobResult r;
  r.ios = ios;
  r.fsyncs = fsyncs;
  return r;
}

TEST(DurabilityTest, DurableWhenQemuSawEveryFsync) {
  const Durability d = CheckDurability(WriteJob(8, false), Wrote(800, 100), 100, 40);
  EXPECT_TRUE(d.checked);
  EXPECT_TRUE(d.durable);
  EXPECT_EQ(d.guest_fsyncs, 100u);
  EXPECT_EQ(d.qemu_flushes, 100u);
  EXPECT_EQ(d.host_flushes, 40u);  // fewer host flushes are not a finding under QEMU
  EXPECT_EQ(d.reason, "QEMU received 100 flushes for the agent's 100 fsyncs");
}

// cache.no-flush=on: QEMU completes the guest's flushes without passing them down.
TEST(DurabilityTest, NotDurableWhenQemuDropsFlushes) {
  const Durability d = CheckDurability(WriteJob(8, false), Wrote(800, 100), 0, std::nullopt);
  EXPECT_TRUE(d.checked);
  EXPECT_FALSE(d.durable);
  EXPECT_EQ(d.reason,
            "the agent made 100 fsyncs but QEMU received only 0 flushes: flushes are dropped on "
            "the way (cache.no-flush=on or cache=unsafe), so the writes are not durable");
}

TEST(DurabilityTest, BareMetalUsesTheLoopDevicesFlushes) {
  JobResult r = Wrote(10, 1);
  r.block.available = true;
  r.block.device = "loop3";
  r.block.flushes = 1;
  const Durability d = CheckDurability(WriteJob(0, true), r, std::nullopt, BareMetalHostFlushes(r));
  EXPECT_TRUE(d.checked);
  EXPECT_TRUE(d.durable);
  EXPECT_EQ(d.reason, "the host device received 1 flush for the agent's 1 fsync");

  r.block.flushes = 0;
  const Durability lost =
      CheckDurability(WriteJob(0, true), r, std::nullopt, BareMetalHostFlushes(r));
  EXPECT_FALSE(lost.durable);
  EXPECT_EQ(lost.reason,
            "the agent made 1 fsync but the host device received only 0 flushes: flushes are "
            "dropped on the way, so the writes are not durable");
}

TEST(DurabilityTest, UncheckedWhenNoFlushCountIsKnown) {
  JobResult r = Wrote(800, 100);
  r.block = UnavailableBlockStats("no device");
  const Durability d =
      CheckDurability(WriteJob(8, false), r, std::nullopt, BareMetalHostFlushes(r));
  EXPECT_FALSE(d.checked);
  EXPECT_EQ(d.reason,
            "the agent made 100 fsyncs but neither QEMU's nor the host device's flush count is "
            "known");
}

TEST(DurabilityTest, JobsThatClaimNoDurabilityAreUnchecked) {
  JobSpec read = WriteJob(8, true);
  read.rw = Direction::Read;
  const Durability r = CheckDurability(read, Wrote(10, 0), 0, 0);
  EXPECT_FALSE(r.checked);
  EXPECT_TRUE(r.durable);
  EXPECT_EQ(r.reason, "a read job claims no durability");

  const Durability w = CheckDurability(WriteJob(0, false), Wrote(10, 0), 0, 0);
  EXPECT_FALSE(w.checked);
  EXPECT_EQ(w.reason,
            "the write job sets neither fsync_every nor end_fsync, so it claims no durability");
}

TEST(DurabilityTest, MissingFsyncIsNotDurable) {
  const Durability d = CheckDurability(WriteJob(8, true), Wrote(800, 0), 0, std::nullopt);
  EXPECT_TRUE(d.checked);
  EXPECT_FALSE(d.durable);
  EXPECT_EQ(d.reason,
            "the job set fsync_every=8 and end_fsync over 800 writes but the agent completed no "
            "fsync");
}

TEST(DurabilityTest, NoFsyncDueWithFewerWritesThanFsyncEvery) {
  const Durability d = CheckDurability(WriteJob(8, false), Wrote(5, 0), 0, std::nullopt);
  EXPECT_TRUE(d.checked);
  EXPECT_TRUE(d.durable);
  EXPECT_EQ(d.reason, "no fsync was due: 5 writes with fsync_every=8");
}

TEST(DurabilityTest, JsonKeepsUnknownApartFromZero) {
  const Durability d = CheckDurability(WriteJob(8, false), Wrote(800, 100), 0, std::nullopt);
  const nlohmann::json j = d;
  EXPECT_EQ(j.at("qemu_flushes"), 0);
  EXPECT_TRUE(j.at("host_flushes").is_null());
  const Durability back = nlohmann::json::parse(j.dump()).get<Durability>();
  EXPECT_EQ(back.checked, d.checked);
  EXPECT_EQ(back.durable, d.durable);
  EXPECT_EQ(back.reason, d.reason);
  EXPECT_EQ(back.guest_fsyncs, 100u);
  EXPECT_EQ(back.qemu_flushes, 0u);
  EXPECT_EQ(back.host_flushes, std::nullopt);
}

TEST(DurabilityTest, FlushesDroppedByConfigurationAreNotDurableWhateverTheCounts) {
  Durability d;
  d.checked = true;
  d.guest_fsyncs = 16;
  d.qemu_flushes = 16;
  d.host_flushes = 0;
  const Durability marked = MarkFlushesDropped(d, "QEMU runs the disk with cache.no-flush=on");
  EXPECT_TRUE(marked.checked);
  EXPECT_FALSE(marked.durable);
  EXPECT_EQ(marked.reason,
            "QEMU runs the disk with cache.no-flush=on: the guest's 16 fsyncs were acknowledged "
            "without reaching the host (QEMU counted 16 flushes, the host device saw 0)");
}

TEST(DurabilityTest, FlushesDroppedLeavesJobsWithoutFsyncUnchecked) {
  Durability d;  // a read job: unchecked, no fsyncs
  EXPECT_FALSE(MarkFlushesDropped(d, "no-flush").checked);
}

// Regression: QEMU 7.2's NVMe emulation counts no flushes in query-blockstats, so an NVMe
// write job with end_fsync was marked not durable (qemu 0, host 1 for 1 fsync).
TEST(DurabilityTest, HostDeviceFlushesVouchWhereQemuDoesNotCountThem) {
  JobSpec spec;
  spec.rw = Direction::Write;
  spec.end_fsync = true;
  JobResult r;
  r.ios = 1024;
  r.fsyncs = 1;
  const Durability d = CheckDurability(spec, r, uint64_t{0}, uint64_t{1});
  EXPECT_TRUE(d.checked);
  EXPECT_TRUE(d.durable) << d.reason;
  EXPECT_EQ(d.reason,
            "QEMU counted 0 flushes (its counter misses them) but the host device received 1 "
            "flush for the agent's 1 fsync");
  EXPECT_FALSE(CheckDurability(spec, r, uint64_t{0}, uint64_t{0}).durable);
}

}  // namespace
}  // namespace storbed
