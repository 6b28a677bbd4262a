#!/usr/bin/env bash
# The long calibration runs of storbed's statistics (bench/calibrate/*.cc): each simulates
# data with a known truth and prints the rates storbed's own rules reached (false alarms,
# power, coverage), the tables docs/compare.md and docs/history.md show.
# Usage: bench/calibrate.sh BUILD_DIR [NAME...] [--reps N] [--seed S]
#   names: compare, gate, change-points, ladder-intervals (all by default; --list names them)
set -euo pipefail
build=${1:?usage: calibrate.sh BUILD_DIR [NAME...] [--reps N] [--seed S]}
shift
cmake --build "$build" --target storbed-calibrate >/dev/null
exec "$build/bench/calibrate/storbed-calibrate" "$@"
