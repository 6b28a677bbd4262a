// storbed-calibrate sequential: `storbed run --until-conclusive`'s judgement (Compare() with
// a sequential plan on simulated interleaved rounds, the code every look runs) against a
// known truth: the A/A rate of a false better/worse over every look, and the rounds to a
// verdict for a true 10% change at CV 10% against the fixed-n design of the same power.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "calibration.h"
#include "judging/seeded_draws.h"
#include "reports/compare.h"
#include "reports/simulated_runs_for_test.h"

namespace storbed {
namespace calibrate_sequential {  // named, not anonymous: a unity build joins files

using testing_support::SimSpec;
using testing_support::SimulatedSides;

struct Outcome {
  bool false_call = false;  // some primary row better or worse
  bool worse = false;       // the first cell's iops row worse
  size_t stop = 0;          // the round the run would stop at: every primary row decided
};

std::vector<RunRecord> UpTo(const std::vector<RunRecord>& runs, size_t round) {
  std::vector<RunRecord> out;
  for (const RunRecord& r : runs)
    if (r.params.at("repeat").get<size_t>() <= round) out.push_back(r);
  return out;
}

// Every open primary row out of reach (and one open at least): a look the gate counts.
bool AllOpenOutOfReach(const CompareReport& r) {
  size_t open = 0;
  for (const MetricRow& row : r.rows) {
    if (row.role != MetricRole::Primary || !row.ratio || row.decided_at) continue;
    ++open;
    if (!row.out_of_reach) return false;
  }
  return open > 0;
}

// One simulated adaptive run: K rounds simulated, judged as the looks would have judged
// them (each test's verdict is final at its look, so one judgement of all K rounds gives
// every look's decisions); it stops at the last test's decision, or spends K. With
// `out_of_reach`, also where every open test has been out of reach (StopsOutOfReach): the
// looks from half the plan on are then judged one by one, which costs a compare per look.
Outcome SimulateRun(const SimSpec& spec, size_t first_look, SeededDraws& d, bool out_of_reach) {
  CompareOptions o;
  o.sequential = SequentialPlan{spec.runs, first_look};
  const CompareSides sides = SimulatedSides(spec, d, /*blocked=*/true);
  const CompareReport r = Compare(sides, o);
  size_t last = 0;
  bool all = true;
  for (const MetricRow& row : r.rows) {
    if (row.role != MetricRole::Primary || !row.ratio) continue;  // no test: no values above 0
    if (row.decided_at)
      last = std::max(last, *row.decided_at);
    else
      all = false;
  }
  Outcome out;
  out.stop = all ? last : spec.runs;
  size_t in_a_row = 0;
  const size_t from = std::max(first_look, (spec.runs + 1) / 2 - (kOutOfReachLooks - 1));
  for (size_t k = from; out_of_reach && k < out.stop; ++k) {
    const CompareSides prefix{sides.base_name, sides.cand_name, UpTo(sides.base, k),
                              UpTo(sides.cand, k), true};
    in_a_row = AllOpenOutOfReach(Compare(prefix, o)) ? in_a_row + 1 : 0;
    if (StopsOutOfReach(k, in_a_row, *o.sequential)) {
      out.stop = k;
      break;
    }
  }
  // Only what was decided by the round it stopped at counts.
  for (const MetricRow& row : r.rows) {
    if (row.role != MetricRole::Primary || !row.ratio) continue;
    const bool called = row.decided_at && *row.decided_at <= out.stop;
    out.false_call |= called && (row.verdict == "better" || row.verdict == "worse");
    if (row.metric == "iops" && row.cell == r.rows.front().cell)
      out.worse = called && row.verdict == "worse";
  }
  return out;
}

void AA(size_t reps, SeededDraws& d, std::ostream& out) {
  out << "A/A, 9 cells x iops, p50, p99 (27 primary tests), alpha 0.01, rounds paired (round "
         "CV 30%), a look after every round from round 5: share of runs with a false better or "
         "worse at any look (stopping where open tests are out of reach can only remove calls, so it is left out here, and the rounds run are those without it)\n  rounds  cv    false better/worse   rounds run (mean)\n";
  for (const size_t k : {10, 20, 40})
    for (const double cv : {0.05, 0.15}) {
      SimSpec s;
      s.runs = k;
      s.cv = cv;
      s.round_cv = 0.30;
      size_t false_calls = 0, rounds = 0;
      for (size_t i = 0; i < reps; ++i) {
        const Outcome o = SimulateRun(s, kDefaultFirstLook, d, /*out_of_reach=*/false);
        false_calls += o.false_call;
        rounds += o.stop;
      }
      char line[160];
      std::snprintf(line, sizeof line, "  %-6zu  %.2f  %-19s  %.1f\n", k, cv,
                    Rate(false_calls, reps).c_str(), double(rounds) / double(reps));
      out << line;
    }
}

// One cell, IOPS alone (no latencies), CAND 10% lower, run CV 10%. Each sequential plan
// (its rounds: the budget) is set against the fixed-n design of the same power: compare's
// paired t at the same alpha, its power measured at each n and the smallest n that reaches
// the plan's measured power searched. A larger plan buys power with rounds that a clear
// change rarely runs, so the ratio falls as the power asked for rises.
void RoundsToVerdict(size_t reps, SeededDraws& d, std::ostream& out) {
  SimSpec base;
  base.cells = 1;
  base.cv = 0.10;
  base.round_cv = 0.30;
  base.latencies = false;
  base.iops_ratio = {0.90};
  std::map<size_t, double> fixed_powers;
  auto fixed_power = [&](size_t n) {
    if (const auto it = fixed_powers.find(n); it != fixed_powers.end()) return it->second;
    SimSpec s = base;
    s.runs = n;
    size_t worse = 0;
    for (size_t i = 0; i < reps; ++i) {
      const CompareReport r = Compare(SimulatedSides(s, d, true), {});
      for (const MetricRow& row : r.rows)
        if (row.metric == "iops") worse += row.verdict == "worse";
    }
    return fixed_powers[n] = double(worse) / double(reps);
  };
  // The smallest n whose measured power reaches `power`: doubling, then bisection (the power
  // rises with n); 320 at most.
  auto fixed_rounds_for = [&](double power) {
    size_t lo = 5, hi = 40;
    while (fixed_power(hi) < power) {
      if (hi >= 320) return hi;
      lo = hi + 1;
      hi *= 2;
    }
    while (lo < hi) {
      const size_t mid = (lo + hi) / 2;
      if (fixed_power(mid) >= power)
        hi = mid;
      else
        lo = mid + 1;
    }
    return lo;
  };
  const size_t n80 = fixed_rounds_for(0.80);
  out << "a true 10% drop, run CV 10% (round CV 30%, paired), 1 cell, iops alone, alpha "
         "0.01; sequential runs also stop where the open test is out of reach, as storbed run "
         "does:\n  fixed n: " << n80 << " rounds for 80% power (measured " << fixed_power(n80)
      << ")\n  sequential plan (rounds)  power               mean rounds to stop  "
         "fixed n, same power  / fixed n\n";
  for (const double factor : {1.0, 1.4, 1.7, 2.0, 2.5}) {
    SimSpec s = base;
    s.runs = size_t(std::lround(factor * double(n80)));
    size_t worse = 0, rounds = 0;
    for (size_t i = 0; i < reps; ++i) {
      const Outcome o = SimulateRun(s, kDefaultFirstLook, d, /*out_of_reach=*/true);
      worse += o.worse;
      rounds += o.stop;
    }
    const double mean = double(rounds) / double(reps);
    const double power = double(worse) / double(reps);
    const size_t same = fixed_rounds_for(power);
    char line[200];
    std::snprintf(line, sizeof line, "  %-24zu  %-18s  %-19.1f  %-3zu (power %.3f)     %.2f\n",
                  s.runs, Rate(worse, reps).c_str(), mean, same, fixed_power(same),
                  mean / double(same));
    out << line;
  }
}

void Run(const CalibrationArgs& args, std::ostream& out) {
  SeededDraws d(args.seed);
  AA(args.reps ? args.reps : 1000, d, out);
  RoundsToVerdict(args.reps ? args.reps : 1000, d, out);
}

const bool registered = RegisterCalibration(
    {"sequential",
     "--until-conclusive: A/A false better/worse over every look, and rounds to a verdict "
     "against the fixed-n design of the same power",
     Run});

}  // namespace calibrate_sequential
}  // namespace storbed
