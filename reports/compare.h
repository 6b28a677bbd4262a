// `storbed compare`: two sets of runs (two results directories, or one split by a matrix
// field) compared cell by cell (target x job x matrix parameters) and metric by metric.
// The unit of a sample is one run. Effect: the ratio of medians CAND/BASE with a seeded
// bootstrap 95% interval; test: Mann-Whitney U on the runs; verdict: better or worse
// (significant and the interval outside +-noise), no change (interval inside +-noise) or
// inconclusive, and "too few runs" below 3 a side.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "reports/compare_environment.h"
#include "reports/compare_metrics.h"
#include "results/run_record.h"

namespace storbed {

struct CompareOptions {
  double alpha = 0.01;
  double noise = 0.02;  // relative: 0.02 = +-2%
  // Wider bands for some cells' metrics, keyed NoiseKey(cell, metric): the gate's
  // night-to-night spread of its baseline. A band is never narrower than `noise`.
  std::map<std::string, double> noise_wider;
  std::string by;       // the field that splits one directory; "" for two directories
  uint64_t seed = 1;    // of the bootstrap, so a report reproduces
};

inline std::string NoiseKey(const std::string& cell, const std::string& metric) {
  return cell + "\t" + metric;
}

struct CompareSides {
  std::string base_name, cand_name;  // a directory, or "job.read_ahead_kb=128"
  std::vector<RunRecord> base, cand;
};

// One directory's records split by `field` ("targets", "machine.kernel", "job.bs", any
// matrix field): BASE is the value that comes first in `declared` (the scenario's list),
// else first in run order. Throws std::invalid_argument naming the field when no run
// varies it or it has other than two values.
CompareSides SplitBy(const std::vector<RunRecord>& records, const std::string& field,
                     const std::vector<std::string>& declared = {});

// The values of `field` in the order the scenario declares them (manifest "scenario", its
// fields with defaults applied): targets, machine.X and disk.X lists, job.X lists of each
// job in turn; as ParamText names them.
std::vector<std::string> DeclaredValues(const nlohmann::json& scenario, const std::string& field);

constexpr size_t kMinRunsPerSide = 3;

struct MetricRow {
  std::string cell, metric;
  Better direction = Better::None;
  size_t n_base = 0, n_cand = 0;
  std::optional<double> median_base, median_cand, ratio, ci_low, ci_high, p;
  // better | worse | no change | inconclusive | too few runs | side by side
  std::string verdict;
  std::string detail;  // "n=2, need 3"; "about 40 runs a side would resolve +-2%"
  double noise = 0;    // the band this row was judged with (relative)
};

struct CellSummary {
  std::string cell;
  size_t n_base = 0, n_cand = 0, failed_base = 0, failed_cand = 0;
  // The smallest relative change the runs can resolve, per metric with a spread
  // (alpha and 80% power): "depth L2 virtqueue" -> 0.06.
  std::vector<std::pair<std::string, double>> resolution;
};

struct MetricSummary {
  std::string metric;
  std::string verdict;  // worse | better | mixed | no change | inconclusive | side by side
  size_t worse = 0, better = 0, cells = 0;
};

struct CompareReport {
  std::string base_name, cand_name;
  CompareOptions options;
  std::vector<CellSummary> cells;
  std::vector<MetricRow> rows;
  std::vector<MetricSummary> metrics;
  std::vector<std::string> only_base, only_cand;  // cells on one side only
  // The environment gate: unset when not checked; false when a difference blocks the
  // verdict (two directories: DiffEnvironments; one split with --by: DiffSidesOfOneRun).
  std::optional<bool> comparable;
  std::vector<EnvironmentDiff> differences;
  bool AnyWorse() const;
};

CompareReport Compare(const CompareSides& sides, const CompareOptions& options);

std::string RenderCompareText(const CompareReport& report);

// One row as a sentence: "virtio-blk r iops: worse: ratio 0.891 [0.852, 0.930], p 0.0001,
// median 1234 -> 1100 (higher is better)". The JUnit failure message of a gate.
std::string VerdictLine(const MetricRow& row);

// One object per cell and metric (cell, metric, direction, n_base, n_cand, median_base,
// median_cand, ratio, ci_low, ci_high, p, verdict, detail) under "rows", beside "cells",
// "metrics", "only_base", "only_cand", and the comparability fields.
nlohmann::json CompareJson(const CompareReport& report);

}  // namespace storbed
