// The long calibration runs of storbed's statistics: each one simulates data with a known
// truth many times, applies storbed's own rule to it, and prints the rates it measured
// (false alarms, power, coverage). The unit tests assert the same characteristics on
// short runs (judging/*_calibration_test.cc); these print the tables docs/compare.md and
// docs/history.md show. bench/calibrate.sh runs them all.
#pragma once

#include <cstdint>
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

// Called from a static initialiser in each calibration's file; the name must be new.
bool RegisterCalibration(Calibration c);
const std::vector<Calibration>& Calibrations();

}  // namespace storbed
