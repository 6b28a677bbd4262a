// `storbed compare`: sets of runs (two results directories, or one split by a field into two
// or more levels) compared cell by cell (target x job x matrix parameters) and metric by
// metric. The unit of a sample is one run. This file gathers the runs and their values and
// lays out the families; every statistical decision (the test, the interval, the
// correction for many tests, the verdict rule, what the runs can resolve) is judging/'s:
// - unpaired sides: Hodges-Lehmann shift of the log values with the exact Mann-Whitney
//   test and its inverted interval;
// - interleaved rounds split by a field (blocks): per-round log ratios, paired t, so a
//   round-wide slowdown cancels;
// - primary metrics (iops, p50_us, p99_us) over every cell and compared pair are one
//   Holm family (the exit code's); secondary metrics another; the rest shown side by side.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "judging/sequential.h"
#include "judging/shift.h"
#include "judging/verdict.h"
#include "reports/compare_environment.h"
#include "reports/compare_metrics.h"
#include "results/run_record.h"

namespace storbed {

struct CompareOptions {
  double alpha = 0.01;     // family-wise, per family
  double noise = 0.02;     // relative: 0.02 = +-2%
  std::string by;          // the field that splits one directory; "" for two directories
  bool all_pairs = false;  // k levels: every pair, not only every level against BASE
  // Rounds gathered by `storbed run --until-conclusive` (the manifest's "sequential"): a
  // paired row is judged at every look the run took, with its boundary, and shows the
  // repeated 95% interval (judging/sequential.h); a fixed-n test would be anti-conservative.
  std::optional<SequentialPlan> sequential;
};

struct CompareSides {
  std::string base_name, cand_name;  // a directory, or "job.read_ahead_kb=128"
  std::vector<RunRecord> base, cand;
  // Interleaved rounds of one session: a run's repeat is its round, and the sides' runs of
  // one round are a block.
  bool blocked = false;
};

// One directory's records split by `field` into its levels, BASE first.
struct CompareLevels {
  std::string field;
  std::vector<std::string> names;            // "job.read_ahead_kb=128", ... in declared order
  std::vector<std::vector<RunRecord>> runs;  // per level
  bool blocked = false;
  // The pairs to compare: every level against BASE, or every pair (CompareOptions).
  std::vector<CompareSides> Pairs(bool all_pairs) const;
};

// One directory's records split by `field` ("targets", "machine.kernel", "job.bs", any
// matrix field) into its levels: BASE is the value that comes first in `declared` (the
// scenario's list), else first in run order. `interleaved`: the session's order was
// interleaved, so levels pair by round. Throws std::invalid_argument naming the field when
// no run varies it or it has fewer than two values.
CompareLevels SplitLevels(const std::vector<RunRecord>& records, const std::string& field,
                          const std::vector<std::string>& declared = {}, bool interleaved = false);

// SplitLevels for exactly two levels; throws std::invalid_argument for more.
CompareSides SplitBy(const std::vector<RunRecord>& records, const std::string& field,
                     const std::vector<std::string>& declared = {}, bool interleaved = false);

// The values of `field` in the order the scenario declares them (manifest "scenario", its
// fields with defaults applied): targets, machine.X and disk.X lists, job.X lists of each
// job in turn; as ParamText names them.
std::vector<std::string> DeclaredValues(const nlohmann::json& scenario, const std::string& field);

struct MetricRow {
  std::string cell, metric;
  Better direction = Better::None;
  MetricRole role = MetricRole::Shown;
  size_t n_base = 0, n_cand = 0;
  std::optional<double> median_base, median_cand, ratio, ci_low, ci_high, p, adjusted_p;
  std::string design;  // "unpaired", "paired by round", or "" where no test ran
  // better | worse | no change | inconclusive | too few runs | side by side (compare);
  // the gate adds within drift | cannot judge
  std::string verdict;
  std::string detail;  // why, and what the runs can resolve
  double noise = 0;    // the band this row was judged with (relative)
  // The gate: the power this row had to call a change of the guarded size (--guard).
  std::optional<double> guard_power;
  // Judged sequentially: the round of the look that decided it (better, worse or no
  // change); unset while it is open.
  std::optional<size_t> decided_at;
  // Judged sequentially and open: its spread and shift would need more rounds than the plan.
  bool out_of_reach = false;
  std::string to_decide;  // judged sequentially and open: what more rounds would do
};

// A row's ratio, 95% interval and p from its test (exp of the log shift and interval).
void SetShiftFigures(MetricRow& row, const ShiftTest& test);

// What a cell's runs can resolve, per judged metric, at the level its family needs.
struct ResolutionLine {
  std::string metric;
  Resolution resolution;
};

struct CellSummary {
  std::string cell;
  size_t n_base = 0, n_cand = 0, failed_base = 0, failed_cand = 0;
  std::vector<ResolutionLine> resolution;
};

struct MetricSummary {
  std::string metric;
  std::string verdict;  // worse | better | mixed | no change | inconclusive | side by side
  size_t worse = 0, better = 0, cells = 0;
};

// How many tests one family judged, and how they were corrected.
struct FamilyInfo {
  size_t tests = 0;        // across every compared pair
  size_t comparisons = 1;  // pairs of sides in the family
  std::string correction = "Holm";
};

struct CompareReport {
  std::string base_name, cand_name;
  CompareOptions options;
  std::vector<CellSummary> cells;
  std::vector<MetricRow> rows;
  std::vector<MetricSummary> metrics;
  std::vector<std::string> only_base, only_cand;  // cells on one side only
  FamilyInfo primary, secondary;
  std::string design;  // "unpaired" or "paired by round"
  // The environment gate: unset when not checked; false when a difference blocks the
  // verdict (two directories: DiffEnvironments; one split with --by: DiffSidesOfOneRun).
  std::optional<bool> comparable;
  std::vector<EnvironmentDiff> differences;
  // A primary row is worse (secondary rows never set the exit code).
  bool AnyWorse() const;
  // Some primary row reached a verdict other than "too few runs".
  bool AnyJudged() const;
};

// Compares every pair with one family per role across all of them.
// The bare-metal control, after the verdicts: a guest cell's judged metric that moved on
// its bare-metal twin too (same job and parameters), beyond the noise and the same way,
// says so in its detail ("environment moved too (bare metal -7%)").
void NoteBareMetalMoves(CompareReport& report);

// A metric over all cells: worse only when its significant cells agree, mixed when some are
// worse and some better.
MetricSummary SummarizeMetric(const std::string& metric, const std::vector<MetricRow>& rows);

std::vector<CompareReport> CompareAll(const std::vector<CompareSides>& pairs,
                                      const CompareOptions& options);
CompareReport Compare(const CompareSides& sides, const CompareOptions& options);

// k levels of one field, per cell and primary metric: the levels from best to worst.
struct RankedLevel {
  std::string level;
  double median = 0;
  std::optional<double> ratio;  // against BASE (the first level)
  std::string verdict;          // against BASE; "" for BASE itself
};
struct RankingRow {
  std::string cell, metric;
  std::vector<RankedLevel> levels;
};
std::vector<RankingRow> RankLevels(const CompareLevels& levels,
                                   const std::vector<CompareReport>& reports);

std::string RenderCompareText(const CompareReport& report);
// Each pair's report, then the ranking of the levels.
std::string RenderLevelsText(const CompareLevels& levels, const std::vector<CompareReport>& reports,
                             const std::vector<RankingRow>& ranking);

// One row as a sentence: "virtio-blk r iops: worse: ratio 0.891 [0.852, 0.930], p 0.0001,
// median 1234 -> 1100 (higher is better)". The JUnit failure message of a gate.
std::string VerdictLine(const MetricRow& row);

// One object per cell and metric (cell, metric, direction, role, n_base, n_cand,
// median_base, median_cand, ratio, ci_low, ci_high, p, adjusted_p, design, verdict, detail)
// under "rows", beside "cells", "metrics", "family", "only_base", "only_cand", and the
// comparability fields.
nlohmann::json CompareJson(const CompareReport& report);
// k levels: "by", "levels", "comparisons" (each a CompareJson), "ranking".
nlohmann::json LevelsJson(const CompareLevels& levels, const std::vector<CompareReport>& reports,
                          const std::vector<RankingRow>& ranking);

}  // namespace storbed
