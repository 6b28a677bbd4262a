// Seeded simulations with a known truth that hold `storbed gate` to what it prints: nights
// with run noise and a level of their own (drift), tonight unchanged or changed in one cell.
// The long version is bench/calibrate (storbed-calibrate gate); its tables are in
// docs/history.md.
#include <gtest/gtest.h>

#include <cmath>

#include "history/gate_nights.h"
#include "judging/seeded_draws.h"
#include "reports/simulated_runs_for_test.h"

namespace storbed {
namespace {

using testing_support::Lognormal;
using testing_support::SimSpec;
using testing_support::SimulatedSide;

struct NightsSpec {
  SimSpec runs;  // cells, runs a night, run CV
  size_t nights = 7;
  double drift = 0.03;  // CV of a night's level
};

CompareReport Gate(const NightsSpec& n, double tonight_iops_ratio, SeededDraws& d,
                   GateOptions o = {}) {
  std::vector<std::vector<RunRecord>> nights;
  for (size_t i = 0; i < n.nights; ++i)
    nights.push_back(
        SimulatedSide(n.runs, 0, d, std::vector<double>(n.runs.runs, Lognormal(d, n.drift))));
  SimSpec tonight = n.runs;
  tonight.iops_ratio = {tonight_iops_ratio};
  return JudgeTonight(
      nights, SimulatedSide(tonight, 1, d, std::vector<double>(n.runs.runs, Lognormal(d, n.drift))),
      o);
}

const MetricRow& Iops(const CompareReport& r) { return testing_support::FirstCellRow(r, "iops"); }

// 7 baseline nights, 3 runs a night at CV 5%, 3% drift between nights, 9 cells: an
// unchanged night exits 4 in at most 1% of nights.
TEST(GateCalibration, AnUnchangedNightIsWorseInAtMostOnePercent) {
  SeededDraws d(606);
  NightsSpec n;
  n.runs.runs = 3;
  size_t worse = 0;
  const size_t reps = 500;
  for (size_t i = 0; i < reps; ++i) {
    const CompareReport r = Gate(n, 1.0, d);
    EXPECT_EQ(r.primary.tests, 27u);
    worse += r.AnyWorse();
  }
  EXPECT_LE(double(worse) / reps, 0.01);
}

// A true -10% change is never "no change"; where the history cannot see it the row says
// "cannot judge", and "worse" comes as often as the gate's printed power says (+-10 points).
TEST(GateCalibration, ATenPercentDropIsWorseAsOftenAsThePrintedPowerSays) {
  SeededDraws d(707);
  for (const size_t cells : {1u, 9u}) {
    NightsSpec n;
    n.runs.cells = cells;
    n.runs.runs = 5;
    n.nights = cells == 1 ? 14 : 7;
    n.drift = cells == 1 ? 0.02 : 0.03;
    size_t worse = 0, no_change = 0, cannot = 0;
    double printed = 0;
    const size_t reps = 300;
    for (size_t i = 0; i < reps; ++i) {
      const MetricRow row = Iops(Gate(n, 0.9, d));
      worse += row.verdict == "worse";
      no_change += row.verdict == "no change" || row.verdict == "within drift";
      cannot += row.verdict == "cannot judge";
      ASSERT_TRUE(row.guard_power);
      printed += *row.guard_power;
    }
    EXPECT_LE(double(no_change) / reps, 0.01) << cells;
    EXPECT_NEAR(double(worse) / reps, printed / reps, 0.10) << cells;
    if (cells == 9) {
      EXPECT_GT(cannot, reps / 2);  // 27 tests over 7 drifting nights
    }
  }
}

}  // namespace
}  // namespace storbed
