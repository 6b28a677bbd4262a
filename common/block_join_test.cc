#include "block_join.h"

#include <gtest/gtest.h>

namespace storbed {
namespace {

constexpr uint32_t kMajor = 254, kMinor = 0;

BlockEvent Ev(BlockEventKind kind, uint64_t t_us, uint64_t sector, uint32_t sectors,
              bool write = false) {
  BlockEvent e;
  e.kind = kind;
  e.time_ns = t_us * 1000;
  e.major = kMajor;
  e.minor = kMinor;
  e.sector = sector;
  e.sectors = sectors;
  e.write = write;
  e.data = sectors > 0;
  return e;
}

// The five events of one request at t0 + 0..4 us.
void Request(std::vector<BlockEvent>& out, uint64_t t0_us, uint64_t sector, uint32_t sectors,
             bool write = false) {
  for (int k = 0; k < kBlockEventKinds; ++k)
    out.push_back(Ev(BlockEventKind(k), t0_us + k, sector, sectors, write));
}

IoWindow Io(uint64_t sector, uint64_t sectors, uint64_t begin_us, uint64_t end_us,
            bool write = false) {
  return {sector, sectors, write, begin_us * 1000, end_us * 1000};
}

TEST(BlockJoin, EachIoGetsTheTimesOfItsOwnRequest) {
  std::vector<BlockEvent> ev;
  Request(ev, 10, 800, 8);
  Request(ev, 20, 1600, 8);
  Request(ev, 12, 808, 8, true);  // a write of the neighbouring block, in flight meanwhile
  const BlockJoin j = JoinBlockEvents(
      {Io(800, 8, 9, 16), Io(1600, 8, 19, 26), Io(808, 8, 11, 18, true)}, ev, kMajor, kMinor, 0);
  EXPECT_EQ(j.joined, 3u);
  EXPECT_EQ(j.times[0].At(BlockEventKind::BioQueue), 10000u);
  EXPECT_EQ(j.times[0].At(BlockEventKind::RqComplete), 14000u);
  EXPECT_EQ(j.times[1].At(BlockEventKind::RqIssue), 23000u);
  EXPECT_EQ(j.times[2].At(BlockEventKind::GetRq), 13000u);
  EXPECT_FALSE(j.times[0].shared);
  EXPECT_EQ(j.events, 15u);
  EXPECT_EQ(j.unmatched_events, 0u);
}

TEST(BlockJoin, AnIoSplitIntoRequestsEndsWithItsLastAndNeedsThemAll) {
  std::vector<BlockEvent> ev;
  Request(ev, 10, 0, 256);
  Request(ev, 12, 256, 256);  // max_sectors_kb 128: 256 KiB in two requests
  BlockJoin j = JoinBlockEvents({Io(0, 512, 9, 20)}, ev, kMajor, kMinor, 0);
  EXPECT_EQ(j.state[0], JoinState::Joined);
  EXPECT_EQ(j.times[0].requests, 2u);
  EXPECT_EQ(j.times[0].At(BlockEventKind::RqIssue), 13000u);
  EXPECT_EQ(j.times[0].At(BlockEventKind::RqComplete), 16000u);
  ev.pop_back();  // the second request's completion was lost
  j = JoinBlockEvents({Io(0, 512, 9, 20)}, ev, kMajor, kMinor, 0);
  EXPECT_EQ(j.state[0], JoinState::Missing);
}

TEST(BlockJoin, AMergedRequestCarriesBothIos) {
  std::vector<BlockEvent> ev = {Ev(BlockEventKind::BioQueue, 10, 0, 8),
                                Ev(BlockEventKind::BioQueue, 11, 8, 8)};
  for (int k = 1; k < kBlockEventKinds; ++k) ev.push_back(Ev(BlockEventKind(k), 11 + k, 0, 16));
  const BlockJoin j = JoinBlockEvents({Io(0, 8, 9, 20), Io(8, 8, 10, 20)}, ev, kMajor, kMinor, 0);
  EXPECT_EQ(j.joined, 2u);
  EXPECT_TRUE(j.times[0].shared);
  EXPECT_TRUE(j.times[1].shared);
  EXPECT_EQ(j.times[1].At(BlockEventKind::BioQueue), 11000u);
  EXPECT_EQ(j.times[1].At(BlockEventKind::RqComplete), 15000u);
}

// Two reads of the same block in flight at once: no event says which is which.
TEST(BlockJoin, TheSameSectorsTwiceInFlightAreAmbiguousNotGuessed) {
  std::vector<BlockEvent> ev;
  Request(ev, 10, 64, 8);
  Request(ev, 11, 64, 8);
  const BlockJoin j =
      JoinBlockEvents({Io(64, 8, 9, 20), Io(64, 8, 10, 20), Io(72, 8, 9, 20)}, ev, kMajor, kMinor, 0);
  EXPECT_EQ(j.ambiguous, 2u);
  EXPECT_EQ(j.state[0], JoinState::Ambiguous);
  EXPECT_EQ(j.state[2], JoinState::Missing);  // its request never came
  EXPECT_EQ(j.missing, 1u);
}

TEST(BlockJoin, EventsOutsideEveryWindowOrOfAnotherDiskAreNotTaken) {
  std::vector<BlockEvent> ev;
  Request(ev, 100, 0, 8);  // the same sectors, after the IO was seen complete
  BlockEvent other = Ev(BlockEventKind::RqIssue, 11, 0, 8);
  other.minor = 16;
  ev.push_back(other);
  const BlockJoin j = JoinBlockEvents({Io(0, 8, 9, 20)}, ev, kMajor, kMinor, 0);
  EXPECT_EQ(j.missing, 1u);
  EXPECT_EQ(j.events, 5u);
  EXPECT_EQ(j.unmatched_events, 5u);
}

// The text trace rounds down to the microsecond: an event in the IO's first microsecond may
// print before its submit time; the slack takes it.
TEST(BlockJoin, TheSlackTakesEventsTheTextRoundedBeforeTheWindow) {
  std::vector<BlockEvent> ev;
  Request(ev, 10, 0, 8);
  const IoWindow io{0, 8, false, 10400, 20000};
  EXPECT_EQ(JoinBlockEvents({io}, ev, kMajor, kMinor, 0).times[0].At(BlockEventKind::BioQueue), 0u);
  EXPECT_EQ(JoinBlockEvents({io}, ev, kMajor, kMinor, 1000).state[0], JoinState::Joined);
}

}  // namespace
}  // namespace storbed
