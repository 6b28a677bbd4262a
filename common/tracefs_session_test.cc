#include "tracefs_session.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

namespace storbed {
namespace {

TEST(TracefsSession, FindsTracefsOrDebugfsInTheMountTable) {
  EXPECT_EQ(TracefsInMounts("sysfs /sys sysfs rw 0 0\n"
                            "tracefs /sys/kernel/tracing tracefs rw,nosuid 0 0\n"),
            "/sys/kernel/tracing");
  EXPECT_EQ(TracefsInMounts("proc /proc proc rw 0 0\n"), "");
}

// A killed run leaves its instance behind, recording; the next session removes it, and
// leaves every other instance (a live storbed's, anybody else's) alone.
TEST(TracefsSession, RemovesOnlyInstancesOfProcessesThatAreGone) {
  const std::string dir = ::testing::TempDir() + "/instances-" + std::to_string(::getpid());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string live = dir + "/storbed-" + std::to_string(::getpid()) + "-0";
  const std::string gone = dir + "/storbed-999999999-3";
  const std::string other = dir + "/perf-42";
  for (const auto& d : {live, gone, other}) ::mkdir(d.c_str(), 0700);
  EXPECT_EQ(RemoveStaleTraceInstances(dir), 1u);
  EXPECT_TRUE(std::filesystem::exists(live));
  EXPECT_FALSE(std::filesystem::exists(gone));
  EXPECT_TRUE(std::filesystem::exists(other));
  std::filesystem::remove_all(dir);
}

TEST(TracefsSession, TheBufferIsASixteenthOfFreeMemoryWithinBounds) {
  EXPECT_EQ(TraceBufferKbPerCpu(450 * 1024, 2), 450 * 1024 / 32);  // a 512 MiB guest
  EXPECT_EQ(TraceBufferKbPerCpu(20ull << 20, 2), 256u * 1024);     // a big host: capped
  EXPECT_EQ(TraceBufferKbPerCpu(0, 4), 1024u);
}

TEST(TracefsSession, TheClockIsLocalOnlyWhereReadingTheClocksourceTraps) {
  EXPECT_EQ(ChooseTraceClock(TraceClock::Auto, "hpet", true), TraceClock::Local);
  EXPECT_EQ(ChooseTraceClock(TraceClock::Auto, "acpi_pm", true), TraceClock::Local);
  EXPECT_EQ(ChooseTraceClock(TraceClock::Auto, "hpet", false), TraceClock::Mono);
  EXPECT_EQ(ChooseTraceClock(TraceClock::Auto, "tsc", true), TraceClock::Mono);
  EXPECT_EQ(ChooseTraceClock(TraceClock::Auto, "kvm-clock", true), TraceClock::Mono);
  EXPECT_EQ(ChooseTraceClock(TraceClock::Local, "tsc", true), TraceClock::Local);
}

}  // namespace
}  // namespace storbed
