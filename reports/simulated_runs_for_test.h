// Simulated runs with a known truth, for the calibration tests and storbed-calibrate: run
// records of bare-metal cells whose IOPS, p50 and p99 are lognormal around a level, with
// the effects the statistics must cope with: a change of a chosen size in chosen cells,
// outlier runs (2x slow), a level per round (interleaved rounds slowed together) or per
// night (drift), and latencies read off the agent's log-linear histogram buckets (64 per
// octave), so they tie as real p50 and p99 values do.
#pragma once

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "judging/seeded_draws.h"
#include "reports/compare.h"
#include "results/run_record.h"

namespace storbed::testing_support {

struct SimSpec {
  size_t cells = 9;
  size_t runs = 5;                    // per side (per round: one run of each side)
  double cv = 0.05;                   // IOPS run to run
  double latency_cv = 0.02;           // p50 run to run (p99 twice this)
  double outlier_rate = 0;            // share of runs 2x slow (IOPS halved, latencies doubled)
  double round_cv = 0;                // a level per round, shared by every run of the round
  std::vector<double> iops_ratio;     // per cell, CAND's IOPS over BASE's (default 1)
  std::vector<double> latency_ratio;  // per cell, CAND's latencies over BASE's (default 1)
  bool latencies = true;              // false: p50 and p99 are 0, so only IOPS is judged
};

// The middle of the agent's histogram bucket that holds `ns` (guest-agent/io/histogram.cc:
// exact below 128 ns, then 64 buckets per power of two).
inline double BucketMiddleNs(double ns) {
  const uint64_t v = uint64_t(std::max(0.0, ns));
  if (v < 128) return double(v);
  const int msb = 63 - __builtin_clzll(v);
  const int g = msb - 6;
  const uint64_t low = (v >> g) << g;
  return double(low + (uint64_t(1) << g) / 2);
}

inline double Lognormal(SeededDraws& d, double cv) {
  const double s = std::sqrt(std::log1p(cv * cv));
  return std::exp(s * d.Normal() - s * s / 2);
}

// One side's runs: `side` 0 is BASE (ratios 1), 1 is CAND. `round_levels` (one per run, or
// empty) multiply the run's IOPS and divide its latencies.
inline std::vector<RunRecord> SimulatedSide(const SimSpec& s, int side, SeededDraws& d,
                                            const std::vector<double>& round_levels = {}) {
  std::vector<RunRecord> out;
  for (size_t c = 0; c < s.cells; ++c) {
    const double iops_ratio = side && c < s.iops_ratio.size() ? s.iops_ratio[c] : 1.0;
    const double lat_ratio = side && c < s.latency_ratio.size() ? s.latency_ratio[c] : 1.0;
    for (size_t i = 0; i < s.runs; ++i) {
      RunRecord r;
      r.run_id = "s" + std::to_string(side) + "-c" + std::to_string(c) + "-" + std::to_string(i);
      r.target = "bare-metal";
      r.accel = "host";
      r.job.name = "j" + std::to_string(c);
      r.params = {{"repeat", int(i) + 1}, {"warmup", false}};
      const double level = round_levels.empty() ? 1.0 : round_levels[i];
      const double slow = d.Uniform() < s.outlier_rate ? 2.0 : 1.0;
      JobResult res;
      res.iops = 10000 * iops_ratio * level * Lognormal(d, s.cv) / slow;
      res.latency.p50_us =
          BucketMiddleNs(90000 * lat_ratio / level * Lognormal(d, s.latency_cv) * slow) / 1000;
      res.latency.p99_us =
          BucketMiddleNs(400000 * lat_ratio / level * Lognormal(d, 2 * s.latency_cv) * slow) / 1000;
      if (!s.latencies) res.latency.p50_us = res.latency.p99_us = 0;
      r.result = res;
      out.push_back(std::move(r));
    }
  }
  return out;
}

// Per round, a level shared by both sides (lognormal with CV round_cv), or none.
inline std::vector<double> RoundLevels(const SimSpec& s, SeededDraws& d) {
  if (s.round_cv == 0) return {};
  std::vector<double> levels(s.runs);
  for (double& v : levels) v = Lognormal(d, s.round_cv);
  return levels;
}

// BASE and CAND drawn from `s` (with the rounds' levels shared by both sides), paired by
// round when `blocked`.
inline CompareSides SimulatedSides(const SimSpec& s, SeededDraws& d, bool blocked = false) {
  const std::vector<double> rounds = RoundLevels(s, d);
  return {"BASE", "CAND", SimulatedSide(s, 0, d, rounds), SimulatedSide(s, 1, d, rounds), blocked};
}

// The first cell's ("bare-metal j0") row of `metric`, the cell a change is put in.
inline const MetricRow& FirstCellRow(const CompareReport& r, const std::string& metric) {
  for (const MetricRow& row : r.rows)
    if (row.cell == "bare-metal j0" && row.metric == metric) return row;
  throw std::logic_error("no row bare-metal j0 " + metric);
}

// What the first cell's runs resolve of `metric`.
inline const Resolution& FirstCellResolution(const CompareReport& r, const std::string& metric) {
  for (const ResolutionLine& line : r.cells.front().resolution)
    if (line.metric == metric) return line.resolution;
  throw std::logic_error("no resolution for " + metric);
}

}  // namespace storbed::testing_support
