#!/usr/bin/env bash
# Runs every bundled scenario (scenarios/*.json) for real, one after another, and prints
# one line each: runs ok / failed and where the report is. A bench target (ctest label
# `bench`, not run by CI): under TCG the whole set takes several minutes.
#
#   bench/bundled_scenarios.sh [BUILD_DIR] [OUT_DIR] [SCENARIO ...]
set -euo pipefail

build=${1:-build}
out=${2:-results/bundled}
shift $(($# > 2 ? 2 : $#)) || true
here=$(cd "$(dirname "$0")/.." && pwd)
storbed=$build/orchestrator/storbed
[[ -x $storbed ]] || { echo "bundled_scenarios: no storbed at $storbed (build first)" >&2; exit 1; }
scenarios=("$@")
((${#scenarios[@]})) || scenarios=("$here"/scenarios/*.json)

mkdir -p "$out"
failed=0
for s in "${scenarios[@]}"; do
  name=$(basename "$s" .json)
  start=$(date +%s)
  if "$storbed" run "$s" --out "$out/$name" >"$out/$name.log" 2>&1; then status=ok; else status="exit $?"; failed=1; fi
  summary=$(python3 -c '
import collections, json, sys
records = json.load(open(sys.argv[1]))
print(", ".join(f"{n} {s}" for s, n in collections.Counter(r["status"] for r in records).items()))
' "$out/$name/results.json" 2>/dev/null || echo "no results")
  printf '%-26s %-8s %4ss  %s  (%s/report.txt)\n' "$name" "$status" $(($(date +%s) - start)) \
    "$summary" "$out/$name"
done
exit $failed
