// ladder-intervals: the operating characteristics of a ladder rung's 95% depth interval
// (judging/mean_interval.h) on series with a known mean. Rows are AR(1) processes and 0/1
// counts that flip rarely, columns the samples a series; four tables: the coverage of the
// intervals given, the share of series refused, the intervals that miss per 100 series, and
// their mean width against the one the true autocorrelation would give. docs/results.md
// quotes them.
#include <cstdio>
#include <string>
#include <vector>

#include "calibration.h"
#include "judging/mean_interval.h"
#include "judging/mean_interval_calibration.h"
#include "judging/seeded_draws.h"

namespace storbed {
namespace calibrate_ladder_intervals {  // named, not anonymous: a unity build joins files

constexpr size_t kDefaultReplicates = 10000;
const std::vector<size_t> kSizes = {20, 50, 100, 200, 1000};

struct Row {
  std::string name;
  SampleProcess process;
};

std::vector<Row> Rows() {
  std::vector<Row> rows;
  for (double phi : {0.0, 0.5, 0.9, 0.95, 0.99}) {
    char name[32];
    std::snprintf(name, sizeof name, "AR(1) phi %.2f", phi);
    rows.push_back({name, {.phi = phi}});
  }
  // An in-flight count that is 0 or 1: on 2% / off 5% of samples (mean 0.29, lag-1
  // autocorrelation 0.93), and a rarer one, on 1% / off 10% (mean 0.09, 0.89).
  rows.push_back({"0/1 on .02 off .05", {.on_off = true, .on = 0.02, .off = 0.05}});
  rows.push_back({"0/1 on .01 off .10", {.on_off = true, .on = 0.01, .off = 0.10}});
  return rows;
}

// One table of the cells' results, each printed by `cell`.
void Table(const std::string& title, const std::vector<Row>& rows,
           const std::vector<std::vector<CoverageResult>>& results,
           std::string (*cell)(const CoverageResult&), std::ostream& out) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%-20s", title.c_str());
  out << buf;
  for (size_t n : kSizes) {
    std::snprintf(buf, sizeof buf, " %11zu", n);
    out << buf;
  }
  out << "\n";
  for (size_t r = 0; r < rows.size(); ++r) {
    std::snprintf(buf, sizeof buf, "%-20s", rows[r].name.c_str());
    out << buf;
    for (const CoverageResult& c : results[r]) out << " " << cell(c);
    out << "\n";
  }
}

// Coverage, with the number of intervals behind it where they are under 100.
std::string CoverageCell(const CoverageResult& c) {
  char buf[32];
  if (c.given == 0) return "          -";
  if (c.given < 100)
    std::snprintf(buf, sizeof buf, "%5.3f [%3zu]", c.Coverage(), c.given);
  else
    std::snprintf(buf, sizeof buf, "%11.3f", c.Coverage());
  return buf;
}

std::string RefusedCell(const CoverageResult& c) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%10.1f%%", 100 * c.Refused());
  return buf;
}

// Intervals given that miss the mean, per 100 series: what a user meets, where a rule
// that always gives one would miss 5.
std::string MissedCell(const CoverageResult& c) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%11.2f",
                c.replicates ? 100.0 * double(c.given - c.covered) / double(c.replicates) : 0.0);
  return buf;
}

std::string WidthCell(const CoverageResult& c) {
  char buf[32];
  if (c.given == 0) return "          -";
  std::snprintf(buf, sizeof buf, "%11.2f", c.WidthOverKnown());
  return buf;
}

void Run(const CalibrationArgs& args, std::ostream& out) {
  const size_t reps = args.reps ? args.reps : kDefaultReplicates;
  const std::vector<Row> rows = Rows();
  std::vector<std::vector<CoverageResult>> results(rows.size());
  for (size_t r = 0; r < rows.size(); ++r)
    for (size_t n : kSizes)
      results[r].push_back(MeasureCoverage(rows[r].process, n, reps, DerivedSeed(args.seed, r, n)));
  out << reps << " series a cell, columns: samples a series. Minimum: " << kMinEffectiveSamples
      << " effective samples and " << kMinRuns << " runs.\n";
  Table("coverage [given]", rows, results, CoverageCell, out);
  Table("refused", rows, results, RefusedCell, out);
  Table("missed per 100", rows, results, MissedCell, out);
  Table("width / known", rows, results, WidthCell, out);
}

static const bool registered = RegisterCalibration(
    {"ladder-intervals",
     "coverage and refusals of the ladder's 95% depth interval on AR(1) and rare 0/1 series", Run});

}  // namespace calibrate_ladder_intervals
}  // namespace storbed
