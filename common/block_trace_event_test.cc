#include "block_trace_event.h"

#include <gtest/gtest.h>

namespace storbed {
namespace {

// Lines as Debian 12's 6.1 kernel printed them in a TCG guest (dd iflag=direct on vda).
TEST(BlockTraceEvent, ReadsTheGuestKernelsLines) {
  const auto q = ParseBlockEventLine(
      "              dd-117     [000] .....     3.978438: block_bio_queue: 254,0 RS 808 + 8 [dd]");
  ASSERT_TRUE(q);
  EXPECT_EQ(q->kind, BlockEventKind::BioQueue);
  EXPECT_EQ(q->time_ns, 3978438000u);
  EXPECT_EQ(q->major, 254u);
  EXPECT_EQ(q->minor, 0u);
  EXPECT_EQ(q->sector, 808u);
  EXPECT_EQ(q->sectors, 8u);
  EXPECT_EQ(q->cpu, 0);
  EXPECT_FALSE(q->write);
  EXPECT_TRUE(q->data);
  const auto i = ParseBlockEventLine(
      "    kworker/0:1H-37      [000] .....     3.978553: block_rq_issue: 254,0 RS 4096 () 808 "
      "+ 8 [kworker/0:1H]");
  ASSERT_TRUE(i);
  EXPECT_EQ(i->kind, BlockEventKind::RqIssue);
  EXPECT_EQ(i->time_ns, 3978553000u);
  const auto c = ParseBlockEventLine(
      "          <idle>-0       [000] d.h2.     3.979853: block_rq_complete: 254,0 RS () 808 + 8 [0]");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->kind, BlockEventKind::RqComplete);
  EXPECT_EQ(c->error, 0);
  EXPECT_EQ(c->sector, 808u);
}

// This host's 6.18 prints the IO priority class and levels after the length.
TEST(BlockTraceEvent, ReadsTheIoPriorityOfNewerKernels) {
  const auto i = ParseBlockEventLine(
      "  storbed-agent-4242 [001] ..... 812.000017: block_rq_issue: 7,3 WS 65536 () 2048 + 128 "
      "none,0,0 [storbed-agent]");
  ASSERT_TRUE(i);
  EXPECT_EQ(i->cpu, 1);
  EXPECT_EQ(i->major, 7u);
  EXPECT_EQ(i->minor, 3u);
  EXPECT_TRUE(i->write);
  EXPECT_EQ(i->sector, 2048u);
  EXPECT_EQ(i->sectors, 128u);
  const auto c = ParseBlockEventLine(
      "  <idle>-0 [001] d.h1. 812.000417: block_rq_complete: 7,3 WS () 2048 + 128 be,0,4 [-5]");
  ASSERT_TRUE(c);
  EXPECT_EQ(c->error, -5);
}

TEST(BlockTraceEvent, TaskNamesWithSpacesAndFlushesWithoutData) {
  const auto f = ParseBlockEventLine(
      " my task-9 [000] ..... 1.000001: block_rq_issue: 8,0 FWS 0 () 0 + 0 [my task]");
  ASSERT_TRUE(f);
  EXPECT_FALSE(f->data);
  const auto d = ParseBlockEventLine("x-1 [000] ..... 1.5: block_getrq: 8,0 DS 100 + 8 [x]");
  ASSERT_TRUE(d);
  EXPECT_EQ(d->time_ns, 1500000000u);
  EXPECT_FALSE(d->data);  // a discard carries no data
}

TEST(BlockTraceEvent, OtherLinesAreNoEvents) {
  EXPECT_FALSE(ParseBlockEventLine("# tracer: nop"));
  EXPECT_FALSE(ParseBlockEventLine(""));
  EXPECT_FALSE(
      ParseBlockEventLine("x-1 [000] ..... 1.000001: block_bio_backmerge: 8,0 R 8 + 8 [x]"));
  EXPECT_FALSE(ParseBlockEventLine("x-1 [000] ..... 1.000001: sched_switch: prev=x"));
}

// A trace cut in the middle of a line is never read as a shorter event.
TEST(BlockTraceEvent, ACutLineIsAnError) {
  EXPECT_THROW(ParseBlockEventLine("dd-117 [000] ..... 3.978438: block_bio_queue: 254,0 RS 808 +"),
               BlockTraceParseError);
  EXPECT_THROW(ParseBlockEventLine("dd-117 [000] ..... 3.978438: block_rq_complete: 254,0 RS () "
                                   "808 + 8 [0"),
               BlockTraceParseError);
  EXPECT_THROW(ParseBlockEventLine("dd-117 [000] ..... 3.97x: block_getrq: 254,0 R 8 + 8 [dd]"),
               BlockTraceParseError);
}

TEST(BlockTraceEvent, KernelDevIsTheTracepointsEncoding) {
  EXPECT_EQ(KernelDev(254, 0), 254ull << 20);
  EXPECT_EQ(KernelDev(7, 3), (7ull << 20) | 3);
}

// The clock markers a session writes (trace_clock_map.h), as this host's kernel prints them;
// a task name with brackets does not hide the CPU.
TEST(BlockTraceEvent, ReadsTraceMarkersWithTheirCpu) {
  const auto m = ParseTraceMarkerLine(
      "            bash-17415   [001] ...1. 38605.517488: tracing_mark_write: storbed-sync 1");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->cpu, 1);
  EXPECT_EQ(m->time_ns, 38605517488000u);
  EXPECT_EQ(m->text, "storbed-sync 1");
  const auto odd = ParseTraceMarkerLine("a [b]-7 [003] 2.000001: tracing_mark_write: x y\n");
  ASSERT_TRUE(odd);
  EXPECT_EQ(odd->cpu, 3);
  EXPECT_EQ(odd->text, "x y");
  EXPECT_FALSE(ParseTraceMarkerLine("x-1 [000] ..... 1.5: block_getrq: 8,0 DS 100 + 8 [x]"));
  EXPECT_FALSE(ParseTraceMarkerLine("x-1 ..... 1.5: tracing_mark_write: no cpu"));
}

TEST(BlockTraceEvent, AnEventWithoutItsCpuDoesNotParse) {
  EXPECT_THROW(ParseBlockEventLine("x-1 ..... 1.5: block_getrq: 8,0 RS 100 + 8 [x]"),
               BlockTraceParseError);
}

}  // namespace
}  // namespace storbed
