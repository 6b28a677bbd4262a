#include "execute/backing_leases.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

namespace storbed {
namespace {

// Records what it was asked to make; "files" are named after the disk and the copy.
struct FakeMaker {
  std::atomic<int> made{0};
  BackingLeases::Maker Fn() {
    return [this](const DiskConfig& disk, size_t copy) {
      ++made;
      Backing b;
      b.path = (disk.backing.empty() ? "backing" : disk.backing) + "-" + std::to_string(copy);
      b.size_bytes = disk.size_bytes;
      return b;
    };
  }
};

// A maker whose first make fails as a full disk does; later ones make "ok-<copy>".
BackingLeases::Maker FailsTheFirstMake(int& calls) {
  return [&calls](const DiskConfig&, size_t copy) {
    if (calls++ == 0) throw std::runtime_error("cannot write /var/tmp/x: No space left");
    Backing b;
    b.path = "ok-" + std::to_string(copy);
    return b;
  };
}

DiskConfig Disk(uint64_t mib, const std::string& named = "") {
  DiskConfig d;
  d.size_bytes = mib << 20;
  d.backing = named;
  return d;
}

TEST(BackingLeasesTest, OneMachineAtATimeReusesTheFirstBacking) {
  FakeMaker maker;
  BackingLeases leases(maker.Fn());
  for (int i = 0; i < 3; ++i) {
    const auto lease = leases.Acquire(Disk(16));
    EXPECT_EQ(lease.backing().path, "backing-0");
  }
  EXPECT_EQ(maker.made, 1);
}

// Regression: two guests in parallel on one backing: QEMU "Failed to get "write" lock".
TEST(BackingLeasesTest, MachinesAtOnceGetBackingsOfTheirOwn) {
  FakeMaker maker;
  BackingLeases leases(maker.Fn());
  const auto a = leases.Acquire(Disk(16));
  const auto b = leases.Acquire(Disk(16));
  const auto other_size = leases.Acquire(Disk(32));
  EXPECT_EQ(a.backing().path, "backing-0");
  EXPECT_EQ(b.backing().path, "backing-1");
  EXPECT_EQ(other_size.backing().path, "backing-0");
  EXPECT_EQ(other_size.backing().size_bytes, 32u << 20);
  EXPECT_EQ(maker.made, 3);
}

TEST(BackingLeasesTest, SharedIsTheFirstBackingWhateverIsLeased) {
  FakeMaker maker;
  BackingLeases leases(maker.Fn());
  EXPECT_EQ(leases.Shared(Disk(16)).path, "backing-0");
  const auto a = leases.Acquire(Disk(16));
  EXPECT_EQ(a.backing().path, "backing-0");
  EXPECT_EQ(leases.Shared(Disk(16)).path, "backing-0");
  EXPECT_EQ(maker.made, 1);
}

TEST(BackingLeasesTest, AUserNamedBackingWaitsForItsMachine) {
  FakeMaker maker;
  BackingLeases leases(maker.Fn());
  auto first = std::make_unique<BackingLeases::Lease>(leases.Acquire(Disk(16, "/dev/sdz")));
  std::atomic<bool> second_got_it{false};
  std::thread t([&] {
    const auto second = leases.Acquire(Disk(16, "/dev/sdz"));
    EXPECT_EQ(second.backing().path, "/dev/sdz-0");
    second_got_it = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(second_got_it);
  first.reset();
  t.join();
  EXPECT_TRUE(second_got_it);
  EXPECT_EQ(maker.made, 1);
}

TEST(BackingLeasesTest, AFailedMakeIsThrownAndTriedAgainNextTime) {
  int calls = 0;
  BackingLeases leases(FailsTheFirstMake(calls));
  EXPECT_THROW(leases.Acquire(Disk(16)), std::runtime_error);
  EXPECT_EQ(leases.Acquire(Disk(16)).backing().path, "ok-0");
}

// The executor fills the next machine's backing while the current one boots.
TEST(BackingLeasesTest, APreparedBackingIsTheNextOneAcquired) {
  FakeMaker maker;
  BackingLeases leases(maker.Fn());
  const auto a = leases.Acquire(Disk(16));
  EXPECT_TRUE(leases.Prepare(Disk(16)));
  EXPECT_EQ(maker.made, 2);
  EXPECT_TRUE(leases.Prepare(Disk(16)));  // one is free: nothing more to make
  EXPECT_EQ(maker.made, 2);
  const auto b = leases.Acquire(Disk(16));
  EXPECT_EQ(b.backing().path, "backing-1");
  EXPECT_EQ(maker.made, 2);
}

// An Acquire that comes while the backing is still being prepared takes it when it is made
// rather than making a third.
TEST(BackingLeasesTest, AnAcquireWaitsForTheBackingBeingPrepared) {
  std::atomic<bool> release{false};
  std::atomic<int> made{0};
  BackingLeases leases([&](const DiskConfig&, size_t copy) {
    ++made;
    while (copy == 1 && !release) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    Backing b;
    b.path = "backing-" + std::to_string(copy);
    return b;
  });
  const auto a = leases.Acquire(Disk(16));
  std::thread preparer([&] { EXPECT_TRUE(leases.Prepare(Disk(16))); });
  while (made < 2) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  std::atomic<bool> acquired{false};
  std::thread machine([&] {
    const auto b = leases.Acquire(Disk(16));
    EXPECT_EQ(b.backing().path, "backing-1");
    acquired = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(acquired);
  release = true;
  preparer.join();
  machine.join();
  EXPECT_EQ(made, 2);
}

TEST(BackingLeasesTest, AFailedPrepareIsLeftToTheAcquireToReport) {
  int calls = 0;
  BackingLeases leases(FailsTheFirstMake(calls));
  EXPECT_FALSE(leases.Prepare(Disk(16)));
  EXPECT_EQ(leases.Acquire(Disk(16)).backing().path, "ok-0");
}

TEST(BackingLeasesTest, AUserNamedBackingIsNeverPrepared) {
  FakeMaker maker;
  BackingLeases leases(maker.Fn());
  const auto a = leases.Acquire(Disk(16, "/dev/sdz"));
  EXPECT_FALSE(leases.Prepare(Disk(16, "/dev/sdz")));
  EXPECT_EQ(maker.made, 1);
}

}  // namespace
}  // namespace storbed
