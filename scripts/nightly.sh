#!/usr/bin/env bash
# The nightly recipe: run a scenario into a dated directory, append it to the history,
# gate it against the last 7 nights, and leave report.txt, report.html (with the cells'
# nightly series and change points), gate.txt and gate.xml (JUnit) beside its results.
#   scripts/nightly.sh [SCENARIO] [ROOT]      STORBED=path/to/storbed to override
# Exit: 0 pass (or the first night: nothing to gate against yet), 3 some runs failed,
# 4 a cell worse than the baseline, 5 not comparable with the baseline, 6 the baseline
# cannot show a change of the guarded size (fewer than 3 nights, or nights too noisy: the
# gate says which), else storbed's own error exit (docs/history.md).
set -uo pipefail
scenario=${1:-scenarios/nightly.json}
root=${2:-/var/lib/storbed/nightly}
storbed=${STORBED:-build/orchestrator/storbed}
night=$root/$(date -u +%Y-%m-%dT%H%M%SZ)
db=$root/history.db
mkdir -p "$root"

"$storbed" run "$scenario" --out "$night" --history "$db"
run_exit=$?
if [[ $run_exit -ne 0 && $run_exit -ne 3 ]]; then
  echo "nightly: storbed run failed (exit $run_exit); nothing gated" >&2
  exit $run_exit
fi
"$storbed" gate "$night" --history "$db" --baseline last:7 --junit "$night/gate.xml" \
  >"$night/gate.txt" 2>"$night/gate.err"
gate_exit=$?
cat "$night/gate.err" >&2
if [[ $gate_exit -eq 2 ]] && grep -q "no baseline" "$night/gate.err"; then
  echo "nightly: the first night of this scenario in $db: nothing to gate against yet"
  gate_exit=0
fi
# The run's report.html again, now with the history up to tonight drawn in it.
"$storbed" report "$night" --html "$night/report.html" --history "$db" 2>>"$night/gate.err" ||
  echo "nightly: report.html kept without the history (see $night/gate.err)" >&2
echo "nightly: $night (run exit $run_exit, gate exit $gate_exit)"
if [[ $gate_exit -ne 0 ]]; then exit $gate_exit; fi
exit $run_exit
