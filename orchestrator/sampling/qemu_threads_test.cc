#include "sampling/qemu_threads.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

namespace storbed {
namespace {

using ::testing::HasSubstr;

std::string Stat(int tid, const std::string& comm, uint64_t utime, uint64_t stime) {
  return std::to_string(tid) + " (" + comm + ") S 100 100 17403 0 -1 138412224 4 0 0 0 " +
         std::to_string(utime) + " " + std::to_string(stime) + " 0 0 20 0 7 0 50 0 0\n";
}

RawThread T(int tid, const std::string& comm, uint64_t u, uint64_t s) {
  return RawThread{tid, Stat(tid, comm, u, s), comm + "\n"};
}

TEST(QemuThreadsTest, ParsesStatWithSpacesAndParenthesesInComm) {
  ThreadTimes t = ParseTaskStat(Stat(42, "a) (b c)", 7, 9));
  EXPECT_EQ(t.tid, 42);
  EXPECT_EQ(t.name, "a) (b c)");
  EXPECT_EQ(t.utime_ticks, 7u);
  EXPECT_EQ(t.stime_ticks, 9u);
}

TEST(QemuThreadsTest, TruncatedStatIsTypedErrorWithRawText) {
  const std::string cut = "19231 (IO io-d0) S 19160 19158 17403 0 -1 138412224 4 0 0";
  try {
    ParseTaskStat(cut);
    FAIL();
  } catch (const HostProcParseError& e) {
    EXPECT_THAT(e.what(), HasSubstr("truncated"));
    EXPECT_EQ(e.raw(), cut);
  }
  EXPECT_THROW(ParseTaskStat("19231 IO io-d0 S"), HostProcParseError);
  EXPECT_THROW(ParseTaskStat(""), HostProcParseError);
  EXPECT_THROW(ParseTaskStat("x (a) S 1 1 1 0 -1 0 0 0 0 0 1 2"), HostProcParseError);
  EXPECT_THROW(ParseTaskStat("1 (a) S 1 1 1 0 -1 0 0 0 0 0 1x 2"), HostProcParseError);
}

TEST(QemuThreadsTest, ClassifiesQemuThreadNames) {
  // Names as QEMU 7.2 with -name ...,debug-threads=on gives them.
  EXPECT_EQ(ClassifyThread("qemu-system-x86", 100, 100), "main");
  EXPECT_EQ(ClassifyThread("CPU 0/TCG", 101, 100), "vcpu");
  EXPECT_EQ(ClassifyThread("CPU 12/KVM", 102, 100), "vcpu");
  EXPECT_EQ(ClassifyThread("IO io-d0", 103, 100), "iothread");
  EXPECT_EQ(ClassifyThread("IO mon_iothread", 104, 100), "iothread");
  EXPECT_EQ(ClassifyThread("worker", 105, 100), "worker");
  EXPECT_EQ(ClassifyThread("call_rcu", 106, 100), "other");
  EXPECT_EQ(ClassifyThread("qemu-system-x86", 107, 100), "other");
}

TEST(QemuThreadsTest, CpuPercentPerClassFromTickDeltas) {
  ThreadSnapshot b = ParseThreads(
      100, {T(100, "qemu-system-x86", 10, 0), T(101, "CPU 0/KVM", 50, 50),
            T(102, "CPU 1/KVM", 0, 0), T(103, "IO io-d0", 5, 5), T(105, "call_rcu", 0, 0)});
  // 0.5 s at 100 ticks/s = 50 ticks per CPU. Worker 106 was born in between.
  ThreadSnapshot a =
      ParseThreads(100, {T(100, "qemu-system-x86", 15, 5), T(101, "CPU 0/KVM", 90, 60),
                         T(102, "CPU 1/KVM", 25, 0), T(103, "IO io-d0", 30, 5),
                         T(105, "call_rcu", 0, 0), T(106, "worker", 2, 3)});
  std::optional<std::string> warning;
  auto cpu = CpuPercentByClass(b, a, 0.5, 100, &warning);
  EXPECT_DOUBLE_EQ(cpu["main"], 20);      // 10 ticks
  EXPECT_DOUBLE_EQ(cpu["vcpu"], 150);     // 50 + 25 ticks
  EXPECT_DOUBLE_EQ(cpu["iothread"], 50);  // 25 ticks
  EXPECT_DOUBLE_EQ(cpu["worker"], 10);    // 5 ticks
  EXPECT_DOUBLE_EQ(cpu["other"], 0);
  EXPECT_FALSE(warning);
}

TEST(QemuThreadsTest, UnnamedThreadsWarnAboutDebugThreads) {
  ThreadSnapshot b =
      ParseThreads(100, {T(100, "qemu-system-x86", 0, 0), T(101, "qemu-system-x86", 0, 0)});
  ThreadSnapshot a =
      ParseThreads(100, {T(100, "qemu-system-x86", 1, 0), T(101, "qemu-system-x86", 9, 0)});
  std::optional<std::string> warning;
  auto cpu = CpuPercentByClass(b, a, 1, 100, &warning);
  EXPECT_DOUBLE_EQ(cpu["other"], 9);
  ASSERT_TRUE(warning);
  EXPECT_THAT(*warning, HasSubstr("debug-threads=on"));
}

TEST(QemuThreadsTest, CommWinsOverStatAndMismatchedTidFails) {
  ThreadSnapshot s = ParseThreads(1, {RawThread{7, Stat(7, "CPU 0/KV", 1, 1), "CPU 0/KVM\n"}});
  EXPECT_EQ(s.threads.at(7).name, "CPU 0/KVM");
  EXPECT_THROW(ParseThreads(1, {RawThread{8, Stat(7, "x", 1, 1), "x\n"}}), HostProcParseError);
}

TEST(QemuThreadsTest, ReadsOwnProcessThreads) {
  ProcThreadReader reader;
  auto raw = reader.ReadThreads(getpid());
  ThreadSnapshot s = ParseThreads(getpid(), raw);
  ASSERT_TRUE(s.threads.count(getpid()));
  EXPECT_EQ(ClassifyThread(s.threads.at(getpid()).name, getpid(), getpid()), "main");
  EXPECT_THROW(reader.ReadThreads(999999999), std::runtime_error);
}

}  // namespace
}  // namespace storbed
