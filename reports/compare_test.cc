#include "reports/compare.h"

#include <gtest/gtest.h>

#include <limits>

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

TEST(CompareTest, AWideNoiseBandKeepsADropWithinItFromBeingWorse) {
  CompareOptions o;
  o.noise = 0.15;
  const CompareReport r = Compare({"a", "b", Side("rand", 1000, 8), Side("rand", 900, 8, 110)}, o);
  const MetricRow& iops = RowOf(r, "iops");
  EXPECT_EQ(iops.verdict, "no change");  // -10% lies inside +-15%
  EXPECT_DOUBLE_EQ(iops.noise, 0.15);
}

TEST(CompareTest, AWideSpreadIsInconclusiveAndSaysWhatTheRunsResolve) {
  std::vector<RunRecord> base, cand;
  const double b[] = {800, 1200, 950, 1100, 1000, 870, 1150, 1020};
  const double c[] = {850, 1250, 900, 1150, 1050, 820, 1200, 980};
  for (int i = 0; i < 8; ++i) {
    base.push_back(MadeRun("nvme", "j", b[i], 100, i + 1));
    cand.push_back(MadeRun("nvme", "j", c[i], 100, i + 1));
  }
  const CompareReport report = Compare({"a", "b", base, cand}, {});
  const MetricRow& iops = RowOf(report, "iops");
  EXPECT_EQ(iops.verdict, "inconclusive");
  EXPECT_NE(iops.detail.find("resolves ratios beyond"), std::string::npos) << iops.detail;
  EXPECT_NE(iops.detail.find("a 10% change needs about"), std::string::npos) << iops.detail;
}

// Regression: 3 runs a side were judged and a clean 20% change printed "inconclusive ...
// about 3 runs a side would resolve +-2%"; 2 v 5 cannot give a p below 0.095 at all.
TEST(CompareTest, RunsThatCannotReachAVerdictSaySoWithTheRunsThatWould) {
  const CompareReport report = Compare({"a", "b", Side("rand", 1000, 2), Side("rand", 500, 5)}, {});
  const MetricRow& iops = RowOf(report, "iops");
  EXPECT_EQ(iops.verdict, "too few runs");
  // Holm over iops, p50 and p99: 0.01 / 3 needs 2 / C(12, 6) = 0.0022: 6 runs a side.
  EXPECT_NE(iops.detail.find("6 runs a side can reach it"), std::string::npos) << iops.detail;
  EXPECT_FALSE(report.AnyJudged());
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
  CompareOptions o;
  o.by = "job.read_ahead_kb";
  const CompareReport r = Compare(sides, o);
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
  for (const char* key : {"cell", "metric", "direction", "role", "n_base", "n_cand",
                          "median_base", "median_cand", "ratio", "ci_low", "ci_high", "p",
                          "adjusted_p", "design", "verdict"})
    EXPECT_TRUE(j["rows"][0].contains(key)) << key;
  EXPECT_EQ(j["family"]["primary"]["tests"], 3);
  EXPECT_EQ(j["family"]["primary"]["correction"], "Holm");
  EXPECT_TRUE(j.contains("comparable"));
  EXPECT_TRUE(j["differences"].is_array());
}

TEST(CompareTest, SignificantCellsThatDisagreeMakeTheMetricMixed) {
  std::vector<RunRecord> base = Side("a", 1000, 8), cand = Side("a", 800, 8);
  for (auto& r : Side("b", 1000, 8)) base.push_back(r);
  for (auto& r : Side("b", 1200, 8)) cand.push_back(r);
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
    for (int i = 0; i < 8; ++i) {
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

// Every report says how many tests it judged: iops, p50 and p99 of each cell are the
// primary family; mib_s (the same test as iops at a fixed block size) is shown, not judged.
TEST(CompareTest, ThePrimaryFamilyIsCellsTimesIopsP50AndP99) {
  std::vector<RunRecord> base = Side("a", 1000, 8), cand = Side("a", 1000, 8);
  for (auto& r : Side("b", 1000, 8)) base.push_back(r);
  for (auto& r : Side("b", 1000, 8)) cand.push_back(r);
  const CompareReport r = Compare({"x", "y", base, cand}, {});
  EXPECT_EQ(r.primary.tests, 6u);
  EXPECT_EQ(RowOf(r, "mib_s").verdict, "side by side");
  EXPECT_EQ(RowOf(r, "mib_s").role, MetricRole::Shown);
  EXPECT_FALSE(RowOf(r, "mib_s").adjusted_p);
  EXPECT_TRUE(RowOf(r, "iops").adjusted_p);
  const std::string text = RenderCompareText(r);
  EXPECT_NE(text.find("judged: 6 primary tests"), std::string::npos) << text;
  EXPECT_NE(text.find("Holm"), std::string::npos);
}

// Regression: a NaN in a run's figures sorted anywhere and changed the verdict; it is bad
// input, named by run and metric.
TEST(CompareTest, AValueThatIsNoNumberIsRefusedNamingTheRun) {
  std::vector<RunRecord> cand = Side("rand", 1000, 5);
  cand[2].result->latency.p99_us = std::numeric_limits<double>::quiet_NaN();
  try {
    Compare({"a", "b", Side("rand", 1000, 5), cand}, {});
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("run 3-virtio-blk-rand: p99_us is not a finite number"),
              std::string::npos)
        << e.what();
  }
}

// Regression: a base median of 0 was reported as a change with ratio 0.
TEST(CompareTest, ZeroValuesHaveNoRatio) {
  std::vector<RunRecord> base = Side("rand", 1000, 6);
  for (RunRecord& r : base) r.result->latency.p50_us = 0;
  const CompareReport r = Compare({"a", "b", base, Side("rand", 1000, 6)}, {});
  const MetricRow& p50 = RowOf(r, "p50_us");
  EXPECT_FALSE(p50.ratio);
  EXPECT_EQ(p50.verdict, "inconclusive");
  EXPECT_NE(p50.detail.find("a ratio needs values above 0"), std::string::npos);
}

// Interleaved rounds pair by repeat: a round that slowed both sides cancels in the ratio.
TEST(CompareTest, BlockedSidesArePairedByRound) {
  std::vector<RunRecord> base, cand;
  const double round[] = {1, 0.5, 1.4, 0.8, 1.1, 0.6, 1.2, 0.9};
  for (int i = 0; i < 8; ++i) {
    base.push_back(MadeRun("nvme", "r", 1000 * round[i] * (1 + 0.003 * (i % 2)), 100, i + 1));
    cand.push_back(MadeRun("nvme", "r", 900 * round[i] * (1 + 0.003 * ((i + 1) % 2)), 100, i + 1));
  }
  const CompareReport paired = Compare({"a", "b", base, cand, true}, {});
  EXPECT_EQ(RowOf(paired, "iops").design, "paired by round");
  EXPECT_EQ(RowOf(paired, "iops").verdict, "worse");
  EXPECT_NEAR(*RowOf(paired, "iops").ratio, 0.9, 0.005);
  const CompareReport flat = Compare({"a", "b", base, cand, false}, {});
  EXPECT_EQ(RowOf(flat, "iops").design, "unpaired");
  EXPECT_NE(RowOf(flat, "iops").verdict, "worse");  // the rounds' spread hides it
}

// Three levels of one field: each against BASE in one family, and a ranking.
TEST(CompareTest, MoreThanTwoLevelsCompareAgainstBaseAndRank) {
  std::vector<RunRecord> all;
  for (int i = 0; i < 8; ++i) {
    const double w = 1 + 0.002 * (i % 3);
    all.push_back(MadeRun("nvme", "r", 1000 * w, 100, i + 1, {{"disk.aio", "threads"}}));
    all.push_back(MadeRun("nvme", "r", 1300 * w, 100, i + 1, {{"disk.aio", "native"}}));
    all.push_back(MadeRun("nvme", "r", 700 * w, 100, i + 1, {{"disk.aio", "io_uring"}}));
  }
  const CompareLevels levels = SplitLevels(all, "disk.aio", {"threads", "native", "io_uring"});
  ASSERT_EQ(levels.names.size(), 3u);
  EXPECT_EQ(levels.Pairs(false).size(), 2u);
  EXPECT_EQ(levels.Pairs(true).size(), 3u);
  CompareOptions o;
  o.by = "disk.aio";
  const std::vector<CompareReport> reports = CompareAll(levels.Pairs(false), o);
  ASSERT_EQ(reports.size(), 2u);
  EXPECT_EQ(reports[0].primary.tests, 6u);  // 2 comparisons x iops, p50, p99
  EXPECT_EQ(reports[0].primary.comparisons, 2u);
  EXPECT_EQ(RowOf(reports[0], "iops").verdict, "better");
  EXPECT_EQ(RowOf(reports[1], "iops").verdict, "worse");
  const std::vector<RankingRow> ranking = RankLevels(levels, reports);
  const RankingRow* iops = nullptr;
  for (const RankingRow& row : ranking)
    if (row.metric == "iops") iops = &row;
  ASSERT_TRUE(iops);
  ASSERT_EQ(iops->levels.size(), 3u);
  EXPECT_EQ(iops->levels[0].level, "disk.aio=native");
  EXPECT_EQ(iops->levels[1].level, "disk.aio=threads");
  EXPECT_EQ(iops->levels[2].level, "disk.aio=io_uring");
  EXPECT_NE(RenderLevelsText(levels, reports, ranking).find("1. disk.aio=native"),
            std::string::npos);
  EXPECT_EQ(LevelsJson(levels, reports, ranking)["comparisons"].size(), 2u);
  EXPECT_THROW(SplitBy(all, "disk.aio"), std::invalid_argument);  // two expected
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
