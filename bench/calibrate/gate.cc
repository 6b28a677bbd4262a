// storbed-calibrate gate: `storbed gate`'s own judgement (JudgeTonight on simulated
// nights) against a known truth: nights with run noise and a level of their own (drift),
// tonight unchanged or 10% worse in one cell. Prints the rates of exit 4 and of "cannot
// judge" (exit 6), and for the changed night the share called worse beside the mean power
// the gate printed.
#include <cmath>
#include <cstdio>

#include "calibration.h"
#include "history/gate_nights.h"
#include "judging/seeded_draws.h"
#include "reports/simulated_runs_for_test.h"

namespace storbed {
namespace calibrate_gate {  // named, not anonymous: a unity build joins files

using testing_support::Lognormal;
using testing_support::SimSpec;
using testing_support::SimulatedSide;

CompareReport Gate(const SimSpec& runs, size_t nights, double drift, double ratio, SeededDraws& d) {
  std::vector<std::vector<RunRecord>> baseline;
  for (size_t i = 0; i < nights; ++i)
    baseline.push_back(
        SimulatedSide(runs, 0, d, std::vector<double>(runs.runs, Lognormal(d, drift))));
  SimSpec tonight = runs;
  tonight.iops_ratio = {ratio};
  return JudgeTonight(
      baseline, SimulatedSide(tonight, 1, d, std::vector<double>(runs.runs, Lognormal(d, drift))),
      GateOptions{});
}

const MetricRow& Iops(const CompareReport& r) { return testing_support::FirstCellRow(r, "iops"); }

std::string Share(size_t k, size_t n) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", double(k) / double(n));
  return buf;
}

void Run(const CalibrationArgs& args, std::ostream& out) {
  const size_t reps = args.reps ? args.reps : 2000;
  SeededDraws d(args.seed);
  out << "unchanged nights, 9 cells (27 primary tests), run CV 5%, guard 10%: exit 4 and "
         "'cannot judge' (exit 6)\n  nights runs drift  exit-4  cannot-judge\n";
  for (const size_t nights : {3u, 7u, 14u, 28u})
    for (const size_t runs : {1u, 3u, 10u})
      for (const double drift : {0.0, 0.03}) {
        SimSpec s;
        s.runs = runs;
        size_t worse = 0, cannot = 0;
        for (size_t i = 0; i < reps; ++i) {
          const CompareReport r = Gate(s, nights, drift, 1.0, d);
          worse += r.AnyWorse();
          cannot += !r.AnyWorse() && AnyCannotJudge(r);
        }
        char line[64];
        std::snprintf(line, sizeof line, "  %-6zu %-4zu %-5.2f ", nights, runs, drift);
        out << line << Share(worse, reps) << "   " << Share(cannot, reps) << "\n";
      }
  out << "tonight 10% lower in one cell's iops, run CV 5%: the row's verdicts and the mean power "
         "it printed\n  cells nights runs drift  worse  printed-power  no-change  cannot-judge\n";
  for (const size_t cells : {1u, 9u})
    for (const size_t nights : {7u, 14u, 28u})
      for (const size_t runs : {3u, 10u})
        for (const double drift : {0.01, 0.03}) {
          SimSpec s;
          s.cells = cells;
          s.runs = runs;
          size_t worse = 0, no_change = 0, cannot = 0;
          double printed = 0;
          const size_t n = reps / 4;
          for (size_t i = 0; i < n; ++i) {
            const MetricRow row = Iops(Gate(s, nights, drift, 0.9, d));
            worse += row.verdict == "worse";
            no_change += row.verdict == "no change" || row.verdict == "within drift";
            cannot += row.verdict == "cannot judge";
            printed += row.guard_power.value_or(0);
          }
          char line[128];
          std::snprintf(line, sizeof line, "  %-5zu %-6zu %-4zu %-5.2f %-6s %-14.3f %-10s %s\n",
                        cells, nights, runs, drift, Share(worse, n).c_str(), printed / double(n),
                        Share(no_change, n).c_str(), Share(cannot, n).c_str());
          out << line;
        }
}

const bool registered = RegisterCalibration(
    {"gate",
     "storbed gate on simulated nights (run noise, night drift): exit 4 on unchanged nights, "
     "'cannot judge', and a 10% drop called as often as the printed power says",
     Run});

}  // namespace calibrate_gate
}  // namespace storbed
