#!/usr/bin/env bash
# A/A check of `storbed compare` on a bare-metal suite of 20 cells (5 block sizes x 2 depths
# x 2 patterns, REPEATS runs each). Nothing differs between the sides, so a sound compare
# exits 4 (a primary metric worse, Holm over the 60 primary tests) in at most alpha (0.01)
# of comparisons. Prints each comparison's exit code and verdict counts for IOPS and p99,
# then the exit codes over all TIMES comparisons (each a fresh session: order_seed 3, 4, ...).
#   twice:       the suite run twice, one directory after the other; compare A B. Drift
#                between the two runs lands on one side.
#   interleaved: one run with job.seed [1, 2] as the sides (the seed only moves random
#                offsets: the same configuration), order interleaved; compare --by job.seed
#                pairs the sides by round.
# Usage: bench/compare_aa.sh BUILD_DIR [REPEATS] [twice|interleaved] [WORK_DIR] [TIMES]
set -euo pipefail
build=${1:?usage: compare_aa.sh BUILD_DIR [REPEATS] [twice|interleaved] [WORK_DIR] [TIMES]}
repeats=${2:-5}
mode=${3:-twice}
work=${4:-/var/tmp/storbed-compare-aa}
times=${5:-1}
storbed=$build/orchestrator/storbed
if [[ $mode == twice ]]; then
  seed='1' order='sequential'
elif [[ $mode == interleaved ]]; then
  seed='[1, 2]' order='interleaved'
else
  echo "compare_aa.sh: mode is twice or interleaved, not $mode" >&2
  exit 2
fi

# One A/A comparison with the session's order seed $1; its compare exit code on stdout's
# last line.
one_aa() {
  rm -rf "$work" && mkdir -p "$work"
  cat >"$work/aa.json" <<JSON
{"name": "aa", "targets": ["bare-metal"], "repeats": $repeats, "disk": {"size": "64m"},
 "order": "$order", "order_seed": $1,
 "jobs": [{"name": "j", "pattern": ["random", "sequential"], "ioengine": "io_uring",
           "iodepth": [1, 8], "bs": ["4k", "8k", "16k", "32k", "64k"], "io_size": "4m",
           "seed": $seed}]}
JSON
  local start compare
  start=$(date +%s)
  if [[ $mode == twice ]]; then
    for side in a b; do
      "$storbed" run "$work/aa.json" --out "$work/$side" --work-dir "$work" >"$work/$side.log" 2>&1
    done
    compare=("$work/a" "$work/b")
  else
    "$storbed" run "$work/aa.json" --out "$work/a" --work-dir "$work" >"$work/a.log" 2>&1
    compare=("$work/a" --by job.seed)
  fi
  echo "runs took $(($(date +%s) - start)) s" >&2
  local code=0
  "$storbed" compare "${compare[@]}" --json >"$work/compare.json" 2>"$work/compare.err" || code=$?
  echo "compare exit: $code $(cat "$work/compare.err")" >&2
  python3 - "$work/compare.json" >&2 <<'PY'
import collections, json, sys
doc = json.load(open(sys.argv[1]))
for metric in ("iops", "p99_us"):
    rows = [r for r in doc["rows"] if r["metric"] == metric]
    counts = collections.Counter(r["verdict"] for r in rows)
    print(f"{metric}: {len(rows)} cells: " + ", ".join(f"{v} {n}" for v, n in sorted(counts.items())))
print("primary tests:", doc["family"]["primary"]["tests"], "design:", doc["design"])
print("comparable:", doc["comparable"], "differences:", [d["item"] for d in doc["differences"]])
PY
  echo "$code"
}

exits=()
for ((t = 0; t < times; t++)); do
  exits+=("$(one_aa $((3 + t)) | tail -n 1)")
done
echo "exit codes over $times comparison(s):$(printf '%s\n' "${exits[@]}" | sort | uniq -c |
  awk '{printf " %s x%s", $2, $1}')"
rm -rf "$work"
