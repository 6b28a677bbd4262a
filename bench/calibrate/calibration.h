// The long calibration runs of storbed's statistics: each one simulates data with a known
// truth many times, applies storbed's own rule to it, and prints the rates it measured
// (false alarms, power, coverage). The unit tests assert the same characteristics on
// short runs (judging/*_calibration_test.cc); these print the tables docs/compare.md and
// docs/history.md show. bench/calibrate.sh runs them all.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

namespace storbed {

struct CalibrationArgs {
  uint64_t seed = 1;
  size_t reps = 0;  // 0: the calibration's own default
};

struct Calibration {
  std::string name;  // "compare-aa", "change-points"
  std::string help;  // one line: what it measures against which truth
  std::function<void(const CalibrationArgs&, std::ostream&)> run;
};

// "0.012 (+-0.003)": a rate k / n with its binomial standard error.
inline std::string Rate(size_t k, size_t n) {
  char buf[48];
  const double p = double(k) / double(n);
  std::snprintf(buf, sizeof buf, "%.3f (+-%.3f)", p, std::sqrt(p * (1 - p) / double(n)));
  return buf;
}

// Called from a static initialiser in each calibration's file; the name must be new.
bool RegisterCalibration(Calibration c);
const std::vector<Calibration>& Calibrations();

}  // namespace storbed
