#include "execute/kept_guests.h"

#include <gtest/gtest.h>

#include "execute/plan_executor.h"

namespace storbed {
namespace {

constexpr uint64_t kMiB = 1 << 20;

TEST(KeptGuestsTest, NothingIsShutDownWhileTheNextGuestFits) {
  EXPECT_TRUE(EvictionsFor({{"a", 512 * kMiB, 1}, {"b", 512 * kMiB, 2}}, 512 * kMiB, 2048 * kMiB)
                  .empty());
  EXPECT_TRUE(EvictionsFor({}, 512 * kMiB, 512 * kMiB).empty());
}

TEST(KeptGuestsTest, TheLeastRecentlyUsedGoFirstUntilTheNextFits) {
  const std::vector<KeptSize> kept = {{"c", 512 * kMiB, 7}, {"a", 512 * kMiB, 3},
                                      {"b", 1024 * kMiB, 5}};
  EXPECT_EQ(EvictionsFor(kept, 512 * kMiB, 2048 * kMiB), std::vector<std::string>{"a"});
  EXPECT_EQ(EvictionsFor(kept, 1024 * kMiB, 2048 * kMiB), (std::vector<std::string>{"a", "b"}));
  // A guest larger than the whole budget empties it and boots anyway.
  EXPECT_EQ(EvictionsFor(kept, 4096 * kMiB, 2048 * kMiB),
            (std::vector<std::string>{"a", "b", "c"}));
}

TEST(KeptGuestsTest, OnlyOneLocalHostAndInterleavedRoundsKeepMachines) {
  Scenario s;
  s.order = RunOrder::Interleaved;
  s.reboot = Reboot::PerMachine;
  RunHost local;
  local.name = "local";
  local.backend = HostBackend::Qemu;
  EXPECT_EQ(WhyRebootPerRound(s, {local}), "");
  RunHost remote = local;
  remote.name = "far";
  remote.backend = HostBackend::Libvirt;
  remote.uri = "qemu+ssh://far.example/system";
  EXPECT_EQ(WhyRebootPerRound(s, {remote}), "host far is another machine");
  EXPECT_EQ(WhyRebootPerRound(s, {local, local}), "the run has 2 hosts");
  s.disk.passthrough = "0000:01:00.0";
  EXPECT_NE(WhyRebootPerRound(s, {local}).find("passed through"), std::string::npos);
  s.disk.passthrough.clear();
  MachineVariant named;
  named.disk.backing = "/dev/sdz";
  s.machines.push_back(named);
  EXPECT_NE(WhyRebootPerRound(s, {local}).find("disk.backing /dev/sdz is one file or device"),
            std::string::npos);
  s.machines.clear();
  s.order = RunOrder::Random;
  EXPECT_EQ(WhyRebootPerRound(s, {local}), "the order is not interleaved");
}

}  // namespace
}  // namespace storbed
