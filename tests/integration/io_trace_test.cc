// Per-IO traces (job.trace) end to end through `storbed run`: real guests on both buses
// with null-co answering after a known 1 ms, a cap of four requests under a 32-deep
// stream, bare metal on a loop device, and a guest started by libvirtd. Assertions are on
// results.json and the files beside it; timings that depend on this machine's speed are
// bounded only by what null-co guarantees (it never answers before its latency).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "ladder.h"
#include "results/results_dir.h"
#include "test_env.h"

namespace storbed {
namespace io_trace_test {  // named, not anonymous: a unity build joins files

struct Outcome {
  std::string dir;
  std::string log;
  std::vector<RunRecord> records;
};

Outcome RunScenario(const std::string& name, const std::string& text,
                    const std::vector<std::string>& extra = {}) {
  Outcome o;
  o.dir = testing::ScratchDir(name);
  std::ofstream(o.dir + "/scenario.json") << text;
  std::vector<std::string> args{"run", o.dir + "/scenario.json", "--out", o.dir + "/out",
                                "--image-cache", testing::ImageCacheDir()};
  args.insert(args.end(), extra.begin(), extra.end());
  const testing::CliRun cli = testing::RunCli(args, o.dir + "/cli.log");
  o.log = cli.log;
  EXPECT_EQ(cli.exit, "exited with status 0") << cli.log;
  EXPECT_TRUE(testing::QemuPidsMentioning(o.dir).empty());
  o.records = LoadResults(o.dir + "/out");
  return o;
}

const DepthFromIos* Depth(const IoTraceFigures& f, const std::string& layer) {
  for (const DepthFromIos& d : f.depth)
    if (d.layer == layer) return &d;
  return nullptr;
}

bool NotTracedNames(const IoTraceFigures& f, const std::string& layer, const std::string& word) {
  for (const NotTraced& n : f.not_traced)
    if (n.layer.find(layer) != std::string::npos && n.reason.find(word) != std::string::npos)
      return true;
  return false;
}

// What every traced run must hold: (nearly) every IO joined, its median where the engine's
// histogram put it, the IOs' file beside the results, segments that add up to the latency.
void ExpectAWholeTrace(const Outcome& o, const RunRecord& r) {
  SCOPED_TRACE(r.run_id);
  ASSERT_EQ(r.status, RunStatus::Ok) << r.error;
  ASSERT_TRUE(r.io_trace) << o.log;
  const IoTraceFigures& f = *r.io_trace;
  EXPECT_GT(f.ios, 100u);
  EXPECT_GE(f.joined_share, 0.99) << f.joined << " of " << f.ios;
  EXPECT_LT(std::abs(f.p50_diff_pct), 2.0) << f.joined_p50_us << " vs " << f.histogram_p50_us;
  EXPECT_TRUE(f.warnings.empty()) << f.warnings.front();
  ASSERT_FALSE(f.file.empty());
  EXPECT_GT(std::filesystem::file_size(o.dir + "/out/" + f.file), 0u);
  ASSERT_FALSE(f.segments.empty());
  for (const Waterfall& w : f.waterfalls) {
    double sum = 0;
    for (const WaterfallStep& s : w.steps) sum += s.us;
    EXPECT_NEAR(sum, w.latency_us, 0.01 * w.latency_us + 2) << w.which;
  }
  // The application's depth from the IOs is the same quantity as L0's counter.
  const DepthFromIos* app = Depth(f, kLayerApp);
  ASSERT_NE(app, nullptr);
  ASSERT_TRUE(app->diff_pct);
  EXPECT_LT(std::abs(*app->diff_pct), 2.0) << app->depth;
}

TEST(IoTraceTest, GuestsOnBothBusesJoinEveryIoAndSeeNullCosLatency) {
  std::string why;
  if (testing::SharedGuestImage(&why).kernel_path.empty()) GTEST_SKIP() << why;
  const Outcome o = RunScenario("io-trace-guest", R"({
    "name": "trace", "targets": ["virtio-blk", "nvme"], "machine": {"memory": "512m"},
    "disk": {"size": "32m", "driver": "null-co", "null_latency": "1ms"},
    "jobs": [{"name": "qd8", "pattern": "random", "bs": "4k", "ioengine": "io_uring",
              "iodepth": 8, "runtime": 1, "trace": true},
             {"name": "cap", "pattern": "random", "bs": "4k", "ioengine": "io_uring",
              "iodepth": 32, "runtime": 1, "nr_requests": 4, "trace": true}]})");
  ASSERT_EQ(o.records.size(), 4u);
  for (const RunRecord& r : o.records) {
    ExpectAWholeTrace(o, r);
    if (!r.io_trace) continue;
    const IoTraceFigures& f = *r.io_trace;
    SCOPED_TRACE(r.run_id);
    // null-co answers after its latency, never before: the backend segment's minimum.
    ASSERT_TRUE(f.configured_backend_us);
    EXPECT_EQ(*f.configured_backend_us, 1000.0);
    EXPECT_GE(f.backend_min_us, 1000.0 - 30.0);  // the log's microsecond stamps
    EXPECT_LT(f.backend_p50_us, 20000.0);
    EXPECT_TRUE(NotTracedNames(f, "host device", "null-co")) << f.not_traced.size();
    EXPECT_NE(f.clock_method.find("causal"), std::string::npos) << f.clock_method;
    // Under TCG the guest's clocksource is the HPET, whose reads trap: the block events are
    // on each CPU's local clock, put on CLOCK_MONOTONIC by markers (docs/tracing.md).
    if (r.accel == "tcg") {
      EXPECT_NE(f.block_clock.find("local clock"), std::string::npos) << f.block_clock;
    }
    // The causal offset puts every joined IO's QEMU pickup after its guest issue and its
    // QEMU completion before the guest's: the cross-clock segments never run backwards.
    // (Its width depends on TCG's timing: 20-47 us most runs, 2.1 ms in one of 8 here.)
    EXPECT_GT(f.clock_uncertainty_ns, 0u);
    for (const SegmentFigures& s : f.segments)
      if (s.clocks == "guest -> host") {
        ASSERT_FALSE(s.percentiles_us.empty()) << s.name;
        EXPECT_GE(s.percentiles_us.front(), 0.0) << s.name;
      }
    // Four requests under 32 IOs: most of each IO's time is spent before its issue.
    if (r.job.name == "cap")
      EXPECT_GT(f.share_before_issue, 0.6);
    else
      EXPECT_LT(f.share_before_issue, 0.6);
  }
  // The report shows them: per-IO blocks in report.txt, the traces section in report.html.
  const std::string text = testing::Slurp(o.dir + "/out/report.txt");
  EXPECT_EQ(testing::Occurrences(text, "per IO (trace), guest"), 4u) << text;
  const std::string html = testing::Slurp(o.dir + "/out/report.html");
  EXPECT_EQ(testing::Occurrences(html, "data-chart=\"io-trace-cdf\""), 4u);
  EXPECT_EQ(testing::Occurrences(html, "data-chart=\"io-trace-waterfall\""), 4u);
}

TEST(IoTraceTest, BareMetalJoinsEveryIoOnOneClock) {
  const Outcome o = RunScenario("io-trace-bare", R"({
    "name": "bare", "targets": ["bare-metal"], "disk": {"size": "32m"},
    "jobs": [{"name": "qd4", "pattern": "random", "bs": "4k", "ioengine": "io_uring",
              "iodepth": 4, "runtime": 1, "trace": true},
             {"name": "seq", "pattern": "sequential", "bs": "64k", "ioengine": "psync",
              "iodepth": 1, "runtime": 1, "trace": true}]})");
  ASSERT_EQ(o.records.size(), 2u);
  for (const RunRecord& r : o.records) {
    ExpectAWholeTrace(o, r);
    if (r.io_trace) {
      EXPECT_EQ(r.io_trace->clock_method, "one clock (bare metal)");
    }
  }
}

TEST(IoTraceTest, AGuestStartedByLibvirtdIsTracedToo) {
  std::string why;
  if (testing::SharedGuestImage(&why).kernel_path.empty()) GTEST_SKIP() << why;
  if (!std::filesystem::exists("/run/libvirt/libvirt-sock"))
    GTEST_SKIP() << "libvirtd is not running (scripts/start-services.sh starts it)";
  const Outcome o = RunScenario("io-trace-libvirt", R"({
    "name": "lvtrace", "targets": ["virtio-blk"], "machine": {"memory": "512m"},
    "disk": {"size": "32m", "driver": "null-co", "null_latency": "1ms"},
    "jobs": [{"name": "qd4", "pattern": "random", "bs": "4k", "ioengine": "io_uring",
              "iodepth": 4, "runtime": 1, "trace": true}]})",
                                {"--backend", "libvirt"});
  ASSERT_EQ(o.records.size(), 1u);
  EXPECT_EQ(o.records[0].backend, "libvirt");
  ExpectAWholeTrace(o, o.records[0]);
}

}  // namespace io_trace_test
}  // namespace storbed
