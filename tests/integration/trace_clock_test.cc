// The local trace clock for real: a block trace of a loop device on each CPU's own clock,
// put on CLOCK_MONOTONIC by the session's markers. The truth is the test's own reads: each
// O_DIRECT read is timed on CLOCK_MONOTONIC around its pread, and its request's issue and
// completion must land inside that window, give or take the mapping's stated uncertainty.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <map>

#include "execute/backing.h"
#include "execute/loop_device.h"
#include "test_env.h"
#include "tracefs_session.h"

namespace storbed {
namespace trace_clock_test {  // named, not anonymous: a unity build joins files

uint64_t Now() {
  timespec ts;
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return uint64_t(ts.tv_sec) * 1000000000ull + uint64_t(ts.tv_nsec);
}

struct Window {
  uint64_t before = 0, after = 0;
};

TEST(TraceClockTest, EventsOnTheLocalClockLandInsideTheReadsThatMadeThem) {
  if (::geteuid() != 0) GTEST_SKIP() << "tracing needs root";
  const std::string dir = testing::ScratchDir("trace-clock");
  const Backing backing = CreateFilledBacking(dir + "/backing.raw", 8 << 20);
  LoopDevice loop = LoopDevice::Attach(backing.path, /*direct_io=*/true);
  struct stat st;
  ASSERT_EQ(::stat(loop.path().c_str(), &st), 0);
  BlockTraceRequest request;
  request.major = major(st.st_rdev);
  request.minor = minor(st.st_rdev);
  request.buffer_kb_per_cpu = 4096;
  request.clock = TraceClock::Local;
  std::unique_ptr<TracefsBlockTrace> trace = TracefsBlockTrace::Start(request);

  const int fd = ::open(loop.path().c_str(), O_RDONLY | O_DIRECT | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  void* buf = nullptr;
  ASSERT_EQ(::posix_memalign(&buf, 4096, 4096), 0);
  std::map<uint64_t, Window> reads;  // by sector
  trace->Begin();
  for (uint64_t i = 0; i < 400; ++i) {
    // Spread over both CPUs' completions: the reads move between them as the kernel likes.
    Window w;
    w.before = Now();
    ASSERT_EQ(::pread(fd, buf, 4096, off_t(i * 4096)), 4096);
    w.after = Now();
    reads[i * 8] = w;
  }
  const BlockTraceCapture c = trace->Stop();
  ::close(fd);
  std::free(buf);

  EXPECT_EQ(c.clock, "local");
  EXPECT_TRUE(c.complete) << c.why_incomplete;
  EXPECT_GT(c.clock_uncertainty_ns, 0u);
  EXPECT_LT(c.clock_uncertainty_ns, 1000000u);
  const uint64_t slack = c.clock_uncertainty_ns + 1000;  // and the text's microsecond
  size_t checked = 0;
  for (const BlockEvent& e : c.events) {
    if (e.kind != BlockEventKind::RqIssue && e.kind != BlockEventKind::RqComplete) continue;
    const auto it = reads.find(e.sector);
    if (it == reads.end()) continue;
    ++checked;
    EXPECT_GE(e.time_ns + slack, it->second.before) << "sector " << e.sector;
    EXPECT_LE(e.time_ns, it->second.after + slack) << "sector " << e.sector;
  }
  EXPECT_GE(checked, 800u);
  std::filesystem::remove_all(dir);
}

}  // namespace trace_clock_test
}  // namespace storbed
