#include "reports/compare.h"

#include <gtest/gtest.h>

namespace storbed {
namespace {

// One measured run of `job` on `target` with these figures.
RunRecord MadeRun(const std::string& target, const std::string& job, double iops, double p99,
              int repeat, nlohmann::json params = nlohmann::json::object()) {
  RunRecord r;
  r.run_id = std::to_string(repeat) + "-" + target + "-" + job;
  r.target = target;
  r.job.name = job;
  r.params = std::move(params);
  r.params["repeat"] = repeat;
  r.params["warmup"] = false;
  JobResult res;
  res.iops = iops;
  res.mib_s = iops * 4 / 1024;
  res.latency.p50_us = p99 / 2;
  res.latency.p99_us = p99;
  res.block.available = true;
  res.block.avg_request_bytes = 4096;
  res.block.reads = 1;
  r.result = res;
  Ladder ladder;
  LayerStats app;
  app.layer = kLayerApp;
  app.available = true;
  app.avg_depth = 8 + 0.01 * repeat;
  ladder.layers.push_back(app);
  r.ladder = ladder;
  return r;
}

// n runs spread +-1% around `iops`.
std::vector<RunRecord> Side(const std::string& job, double iops, int n, double p99 = 100) {
  std::vector<RunRecord> out;
  for (int i = 0; i < n; ++i) {
    const double wobble = 1 + 0.01 * double((i % 5) - 2) / 2;
    out.push_back(MadeRun("virtio-blk", job, iops * wobble, p99 / wobble, i + 1));
  }
  return out;
}

const MetricRow& RowOf(const CompareReport& r, const std::string& metric) {
  for (const auto& row : r.rows)
    if (row.metric == metric) return row;
  throw std::runtime_error("no row " + metric);
}

TEST(CompareTest, AClearDropIsWorseAndLowerLatencyIsNotBetterWhenItRose) {
  const CompareReport r = Compare({"a", "b", Side("rand", 1000, 8), Side("rand", 900, 8, 110)}, {});
  const MetricRow& iops = RowOf(r, "iops");
  EXPECT_EQ(iops.verdict, "worse");
  EXPECT_NEAR(*iops.ratio, 0.9, 0.01);
  EXPECT_LT(*iops.ci_low, 0.9);
  EXPECT_GT(*iops.ci_high, 0.89);
  EXPECT_LT(*iops.p, 0.01);
  EXPECT_EQ(RowOf(r, "p99_us").verdict, "worse");  // latency rose
  EXPECT_EQ(RowOf(r, "req_kib").verdict, "side by side");
  EXPECT_EQ(RowOf(r, "depth L0 app").direction, Better::None);
  EXPECT_TRUE(r.AnyWorse());
  ASSERT_EQ(r.metrics.front().metric, "iops");
  EXPECT_EQ(r.metrics.front().verdict, "worse");
}

TEST(CompareTest, TheSameRunsAreNoChange) {
  const CompareReport r = Compare({"a", "b", Side("rand", 1000, 8), Side("rand", 1000, 8)}, {});
  EXPECT_EQ(RowOf(r, "iops").verdict, "no change");
  EXPECT_FALSE(r.AnyWorse());
}

TEST(CompareTest, AWiderNoiseBandForOneMetricKeepsADropWithinItFromBeingWorse) {
  CompareOptions o;
  o.noise_wider[NoiseKey("virtio-blk rand", "iops")] = 0.15;
  const CompareReport r = Compare({"a", "b", Side("rand", 1000, 8), Side("rand", 900, 8, 110)}, o);
  const MetricRow& iops = RowOf(r, "iops");
  EXPECT_EQ(iops.verdict, "no change");  // -10% lies inside +-15%
  EXPECT_DOUBLE_EQ(iops.noise, 0.15);
  EXPECT_NE(iops.detail.find("noise band +-15%: the baseline nights' own spread"),
            std::string::npos)
      << iops.detail;
  EXPECT_EQ(RowOf(r, "p99_us").verdict, "worse");  // its band stays +-2%
  EXPECT_DOUBLE_EQ(RowOf(r, "p99_us").noise, 0.02);
}

TEST(CompareTest, AWideSpreadIsInconclusiveAndSaysHowManyRunsWouldDo) {
  std::vector<RunRecord> base, cand;
  const double b[] = {800, 1200, 950, 1100, 1000}, c[] = {850, 1250, 900, 1150, 1050};
  for (int i = 0; i < 5; ++i) {
    base.push_back(MadeRun("nvme", "j", b[i], 100, i + 1));
    cand.push_back(MadeRun("nvme", "j", c[i], 100, i + 1));
  }
  const CompareReport report = Compare({"a", "b", base, cand}, {});
  const MetricRow& iops = RowOf(report, "iops");
  EXPECT_EQ(iops.verdict, "inconclusive");
  EXPECT_NE(iops.detail.find("runs a side would resolve +-2%"), std::string::npos) << iops.detail;
}

TEST(CompareTest, FewerThanThreeRunsGiveNoPValue) {
  const CompareReport report = Compare({"a", "b", Side("rand", 1000, 2), Side("rand", 500, 5)}, {});
  const MetricRow& iops = RowOf(report, "iops");
  EXPECT_EQ(iops.verdict, "too few runs");
  EXPECT_EQ(iops.detail, "n=2, need 3");
  EXPECT_FALSE(iops.p);
}

TEST(CompareTest, CellsOnOneSideAreListedAndFailedRunsCounted) {
  std::vector<RunRecord> base = Side("rand", 1000, 4), cand = Side("rand", 1000, 4);
  for (auto& r : Side("seq", 300, 3)) base.push_back(r);
  RunRecord failed = MadeRun("virtio-blk", "rand", 0, 0, 9);
  failed.status = RunStatus::Failed;
  failed.result.reset();
  cand.push_back(failed);
  const CompareReport r = Compare({"a", "b", base, cand}, {});
  ASSERT_EQ(r.only_base.size(), 1u);
  EXPECT_EQ(r.only_base[0], "virtio-blk seq");
  ASSERT_EQ(r.cells.size(), 1u);
  EXPECT_EQ(r.cells[0].n_cand, 4u);
  EXPECT_EQ(r.cells[0].failed_cand, 1u);
  EXPECT_NE(RenderCompareText(r).find("only in BASE: virtio-blk seq"), std::string::npos);
}

TEST(CompareTest, SplitByAMatrixFieldMakesTheSidesAndDropsItFromTheCell) {
  std::vector<RunRecord> all;
  for (int i = 0; i < 4; ++i) {
    all.push_back(MadeRun("virtio-blk", "seq", 100, 10, i + 1, {{"job.read_ahead_kb", 128}}));
    all.push_back(MadeRun("virtio-blk", "seq", 50, 10, i + 1, {{"job.read_ahead_kb", 0}}));
  }
  const CompareSides sides = SplitBy(all, "job.read_ahead_kb");
  EXPECT_EQ(sides.base_name, "job.read_ahead_kb=128");
  EXPECT_EQ(sides.base.size(), 4u);
  const CompareReport r = Compare(sides, {.by = "job.read_ahead_kb"});
  ASSERT_EQ(r.cells.size(), 1u);
  EXPECT_EQ(r.cells[0].cell, "virtio-blk seq");
  EXPECT_THROW(SplitBy(all, "disk.cache"), std::invalid_argument);
  // The scenario's declared order names BASE, whatever ran first (interleaved rounds).
  const nlohmann::json scenario = {
      {"targets", {"virtio-blk"}},
      {"jobs", {{{"name", "seq"}, {"read_ahead_kb", {0, 128}}}, {{"name", "other"}}}}};
  EXPECT_EQ(DeclaredValues(scenario, "job.read_ahead_kb"), (std::vector<std::string>{"0", "128"}));
  EXPECT_EQ(SplitBy(all, "job.read_ahead_kb", DeclaredValues(scenario, "job.read_ahead_kb"))
                .base_name,
            "job.read_ahead_kb=0");
  EXPECT_THROW(SplitBy(all, "job.no_such_field"), std::invalid_argument);
  all.push_back(MadeRun("virtio-blk", "seq", 70, 10, 1, {{"job.read_ahead_kb", 64}}));
  EXPECT_THROW(SplitBy(all, "job.read_ahead_kb"), std::invalid_argument);
}

// The null-co case: the guest's own time hides a 5% longer device latency in IOPS, the
// QEMU block rung's latency shows it.
TEST(CompareTest, ARungsLatencyIsJudgedLowerIsBetter) {
  std::vector<RunRecord> base, cand;
  for (int i = 0; i < 10; ++i) {
    for (auto* side : {&base, &cand}) {
      RunRecord r = MadeRun("virtio-blk", "r", 80 + (i % 3), 100, i + 1);
      LayerStats qemu;
      qemu.layer = kLayerQemuBlock;
      qemu.available = true;
      qemu.has_latency = true;
      qemu.mean_latency_us = (side == &base ? 10000 : 10500) * (1 + 0.002 * (i % 5));
      r.ladder->layers.push_back(qemu);
      side->push_back(r);
    }
  }
  const CompareReport r = Compare({"a", "b", base, cand}, {});
  const MetricRow* latency = nullptr;
  for (const MetricRow& row : r.rows)
    if (row.metric == "latency L2 QEMU block") latency = &row;
  ASSERT_NE(latency, nullptr);
  EXPECT_EQ(latency->direction, Better::Lower);
  EXPECT_EQ(latency->verdict, "worse");
  EXPECT_LE(*latency->ci_low, 1.05);
  EXPECT_GE(*latency->ci_high, 1.05);
  EXPECT_EQ(DirectionOf("latency L2 QEMU block"), Better::Lower);
  EXPECT_EQ(DirectionOf("depth L0 app"), Better::None);
}

TEST(CompareTest, JsonHasOneObjectPerCellAndMetric) {
  const CompareReport r = Compare({"a", "b", Side("rand", 1000, 5), Side("rand", 1000, 5)}, {});
  const nlohmann::json j = CompareJson(r);
  ASSERT_EQ(j["rows"].size(), r.rows.size());
  for (const char* key : {"cell", "metric", "direction", "n_base", "n_cand", "median_base",
                          "median_cand", "ratio", "ci_low", "ci_high", "p", "verdict"})
    EXPECT_TRUE(j["rows"][0].contains(key)) << key;
  EXPECT_TRUE(j.contains("comparable"));
  EXPECT_TRUE(j["differences"].is_array());
}

TEST(CompareTest, SignificantCellsThatDisagreeMakeTheMetricMixed) {
  std::vector<RunRecord> base = Side("a", 1000, 6), cand = Side("a", 800, 6);
  for (auto& r : Side("b", 1000, 6)) base.push_back(r);
  for (auto& r : Side("b", 1200, 6)) cand.push_back(r);
  const CompareReport r = Compare({"x", "y", base, cand}, {});
  EXPECT_EQ(r.metrics.front().verdict, "mixed");
  EXPECT_EQ(r.metrics.front().worse, 1u);
  EXPECT_EQ(r.metrics.front().better, 1u);
}

// Guest and bare metal both 10% slower: the host moved, and the cost of virtualisation
// (guest/bare-metal) did not change.
TEST(CompareTest, TheBareMetalTwinSaysWhenTheEnvironmentMovedToo) {
  auto side = [](double guest, double bare) {
    std::vector<RunRecord> runs;
    for (int i = 0; i < 6; ++i) {
      const double wobble = 1 + 0.002 * (i % 3);
      runs.push_back(MadeRun("nvme", "rand", guest * wobble, 100, i + 1));
      runs.push_back(MadeRun("bare-metal", "rand", bare * wobble, 50, i + 1));
    }
    return runs;
  };
  const CompareReport r = Compare({"a", "b", side(1000, 4000), side(900, 3600)}, {});
  const MetricRow* guest = nullptr;
  const MetricRow* cost = nullptr;
  for (const MetricRow& row : r.rows) {
    if (row.cell == "nvme rand" && row.metric == "iops") guest = &row;
    if (row.cell == "nvme rand" && row.metric == "iops guest/bare-metal") cost = &row;
  }
  ASSERT_TRUE(guest && cost);
  EXPECT_EQ(guest->verdict, "worse");
  EXPECT_NE(guest->detail.find("environment moved too (bare metal -10%)"), std::string::npos)
      << guest->detail;
  EXPECT_NEAR(*cost->ratio, 1.0, 1e-9);
  EXPECT_EQ(cost->verdict, "no change");
  EXPECT_EQ(r.metrics.back().metric, "iops guest/bare-metal");
}

// Charts label their metrics with the directions compare judges by, from the one table.
TEST(CompareTest, DirectionsAreLookedUpByMetricName) {
  EXPECT_EQ(DirectionOf("iops"), Better::Higher);
  EXPECT_EQ(DirectionOf("p99_us"), Better::Lower);
  EXPECT_EQ(DirectionOf("req_kib"), Better::None);
  EXPECT_EQ(DirectionOf("depth L1 guest block"), Better::None);
  EXPECT_EQ(DirectionOf(""), Better::None);
  EXPECT_EQ(BetterPhrase(Better::Higher), "higher is better");
  EXPECT_EQ(BetterPhrase(Better::Lower), "lower is better");
  EXPECT_EQ(BetterPhrase(Better::None), "no better direction");
}

}  // namespace
}  // namespace storbed
