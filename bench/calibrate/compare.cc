// storbed-calibrate compare: `storbed compare`'s own code (Compare() on simulated run
// records) against a known truth: the A/A rate of exit 4, the power of the resolution it
// prints and of the runs it advises, its intervals' coverage, the power table by n and CV,
// and what pairing by round buys an interleaved design.
#include "reports/compare.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>

#include "calibration.h"
#include "judging/seeded_draws.h"
#include "reports/simulated_runs_for_test.h"

namespace storbed {
namespace calibrate_compare {  // named, not anonymous: a unity build joins files

using testing_support::SimSpec;

using testing_support::FirstCellResolution;
using testing_support::FirstCellRow;
using testing_support::SimulatedSides;

CompareReport Simulate(const SimSpec& s, SeededDraws& d, const CompareOptions& o = {}) {
  return Compare(SimulatedSides(s, d), o);
}

const MetricRow& Row(const CompareReport& r, const std::string& metric) {
  return FirstCellRow(r, metric);
}

const Resolution& IopsResolution(const CompareReport& r) { return FirstCellResolution(r, "iops"); }

// The two designs compare applies: unpaired sides, or interleaved rounds paired by round
// (each round's level lognormal with CV 30%, shared by both sides' runs of the round).
struct DesignCase {
  const char* name;
  bool blocked;
  double round_cv;
};
constexpr DesignCase kDesigns[] = {{"unpaired", false, 0.0}, {"paired", true, 0.30}};

CompareReport Simulate(const SimSpec& s, const DesignCase& design, SeededDraws& d) {
  SimSpec spec = s;
  spec.round_cv = design.round_cv;
  return Compare(SimulatedSides(spec, d, design.blocked), {});
}

void AA(size_t reps, SeededDraws& d, std::ostream& out) {
  out << "A/A, 9 cells x iops, p50, p99 (27 primary tests), alpha 0.01: share of comparisons "
         "that exit 4\n  design    n   cv    outliers  exit-4 rate\n";
  for (const DesignCase& design : kDesigns)
    for (const size_t n : {5u, 10u, 20u})
      for (const double cv : {0.05, 0.10, 0.15})
        for (const double outliers : {0.0, 0.05}) {
          SimSpec s;
          s.runs = n;
          s.cv = cv;
          s.outlier_rate = outliers;
          size_t worse = 0;
          for (size_t i = 0; i < reps; ++i) worse += Simulate(s, design, d).AnyWorse();
          char line[96];
          std::snprintf(line, sizeof line, "  %-9s %-3zu %-5.2f %-9.2f ", design.name, n, cv,
                        outliers);
          out << line << Rate(worse, reps) << "\n";
        }
}

void PrintedPower(size_t reps, SeededDraws& d, std::ostream& out) {
  out << "power at the printed resolution (one cell of 9 changed by it, a new comparison), "
         "target 0.80\n  design    n   cv    median printed ratio  power\n";
  for (const DesignCase& design : kDesigns)
    for (const size_t n : {5u, 10u, 20u})
      for (const double cv : {0.05, 0.15}) {
        SimSpec s;
        s.runs = n;
        s.cv = cv;
        size_t called = 0, printed = 0;
        std::vector<double> ratios;
        for (size_t i = 0; i < reps; ++i) {
          const Resolution r = IopsResolution(Simulate(s, design, d));
          if (!r.shift) continue;
          ++printed;
          ratios.push_back(std::exp(-*r.shift));
          SimSpec changed = s;
          changed.iops_ratio = {std::exp(-*r.shift)};
          called += Row(Simulate(changed, design, d), "iops").verdict == "worse";
        }
        char line[128];
        std::snprintf(line, sizeof line, "  %-9s %-3zu %-5.2f ", design.name, n, cv);
        out << line;
        if (!printed) {
          out << "none printed (no verdict reachable)\n";
          continue;
        }
        std::nth_element(ratios.begin(), ratios.begin() + long(ratios.size() / 2), ratios.end());
        std::snprintf(line, sizeof line, "%-21.3f ", ratios[ratios.size() / 2]);
        out << line << Rate(called, printed) << "\n";
      }
}

void AdvisedRuns(size_t reps, SeededDraws& d, std::ostream& out) {
  out << "a 10% change in one cell of 9 at the runs advised from a 5-run pilot (target >= 0.80)\n"
         "  cv    median advised  power\n";
  for (const double cv : {0.05, 0.15}) {
    size_t called = 0;
    std::vector<size_t> advised;
    for (size_t i = 0; i < reps; ++i) {
      SimSpec pilot;
      pilot.cv = cv;
      const std::optional<size_t> n = IopsResolution(Simulate(pilot, d)).runs_for_10;
      if (!n) continue;
      advised.push_back(*n);
      SimSpec s;
      s.cv = cv;
      s.runs = *n;
      s.iops_ratio = {0.9};
      called += Row(Simulate(s, d), "iops").verdict == "worse";
    }
    std::nth_element(advised.begin(), advised.begin() + long(advised.size() / 2), advised.end());
    char line[96];
    std::snprintf(line, sizeof line, "  %-5.2f %-15zu ", cv, advised[advised.size() / 2]);
    out << line << Rate(called, advised.size()) << "\n";
  }
}

void Coverage(size_t reps, SeededDraws& d, std::ostream& out) {
  out << "coverage of the 95% interval of the iops ratio (true ratio 0.9)\n"
         "  n   cv    coverage          no interval\n";
  for (const size_t n : {3u, 4u, 5u, 10u, 20u})
    for (const double cv : {0.05, 0.15}) {
      SimSpec s;
      s.cells = 1;
      s.runs = n;
      s.cv = cv;
      s.iops_ratio = {0.9};
      size_t covered = 0, none = 0;
      for (size_t i = 0; i < reps; ++i) {
        const MetricRow row = Row(Simulate(s, d), "iops");
        if (!row.ci_low) {
          ++none;
          continue;
        }
        covered += *row.ci_low <= 0.9 && 0.9 <= *row.ci_high;
      }
      char line[64];
      std::snprintf(line, sizeof line, "  %-3zu %-5.2f ", n, cv);
      out << line << (none == reps ? "-                " : Rate(covered, reps - none) + "  ")
          << Rate(none, reps) << "\n";
    }
}

void PowerTable(size_t reps, SeededDraws& d, std::ostream& out) {
  out << "power to call a change in one cell of 9 (27 primary tests, Holm, alpha 0.01, band "
         "+-2%)\n  n   cv    5% change         10% change\n";
  for (const size_t n : {5u, 10u, 20u, 40u})
    for (const double cv : {0.05, 0.10, 0.15}) {
      char line[64];
      std::snprintf(line, sizeof line, "  %-3zu %-5.2f ", n, cv);
      out << line;
      for (const double change : {0.05, 0.10}) {
        SimSpec s;
        s.runs = n;
        s.cv = cv;
        s.iops_ratio = {1 - change};
        size_t called = 0;
        for (size_t i = 0; i < reps; ++i) called += Row(Simulate(s, d), "iops").verdict == "worse";
        out << Rate(called, reps) << "  ";
      }
      out << "\n";
    }
}

void Blocks(size_t reps, SeededDraws& d, std::ostream& out) {
  out << "interleaved rounds: round level lognormal CV 30%, a 10% change, CV 5% within rounds, "
         "iops alone\n  rounds alpha  paired by round   unpaired\n";
  for (const size_t rounds : {6u, 8u, 12u})
    for (const double alpha : {0.05, 0.01}) {
      SimSpec s;
      s.cells = 1;
      s.runs = rounds;
      s.round_cv = 0.30;
      s.latencies = false;
      s.iops_ratio = {0.9};
      CompareOptions o;
      o.alpha = alpha;
      size_t paired = 0, unpaired = 0;
      for (size_t i = 0; i < reps; ++i) {
        CompareSides sides = SimulatedSides(s, d, true);
        paired += Row(Compare(sides, o), "iops").verdict == "worse";
        sides.blocked = false;
        unpaired += Row(Compare(sides, o), "iops").verdict == "worse";
      }
      char line[64];
      std::snprintf(line, sizeof line, "  %-6zu %-6.2f ", rounds, alpha);
      out << line << Rate(paired, reps) << "  " << Rate(unpaired, reps) << "\n";
    }
}

void Run(const CalibrationArgs& args, std::ostream& out) {
  const size_t reps = args.reps ? args.reps : 2000;
  SeededDraws d(args.seed);
  AA(reps, d, out);
  PrintedPower(reps / 2, d, out);
  AdvisedRuns(reps / 4, d, out);
  Coverage(reps, d, out);
  PowerTable(reps / 4, d, out);
  Blocks(reps / 2, d, out);
}

const bool registered = RegisterCalibration(
    {"compare",
     "storbed compare on simulated runs (lognormal, 2x outliers, histogram-bucket latencies): "
     "A/A exit 4, printed power, advised runs, coverage, power table, blocks",
     Run});

}  // namespace calibrate_compare
}  // namespace storbed
