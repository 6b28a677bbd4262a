#!/usr/bin/env bash
# A/A check of `storbed compare`: the same bare-metal suite (20 cells: 5 block sizes x
# 2 depths x 2 patterns, REPEATS runs each) run twice, then compared. A sound test calls at
# most about alpha of the cells better or worse. Prints the verdict counts for IOPS.
# Usage: bench/compare_aa.sh BUILD_DIR [REPEATS] [WORK_DIR]
set -euo pipefail
build=${1:?usage: compare_aa.sh BUILD_DIR [REPEATS] [WORK_DIR]}
repeats=${2:-5}
work=${3:-/var/tmp/storbed-compare-aa}
rm -rf "$work" && mkdir -p "$work"
cat >"$work/aa.json" <<JSON
{"name": "aa", "targets": ["bare-metal"], "repeats": $repeats, "disk": {"size": "64m"},
 "jobs": [{"name": "j", "pattern": ["random", "sequential"], "ioengine": "io_uring",
           "iodepth": [1, 8], "bs": ["4k", "8k", "16k", "32k", "64k"], "io_size": "4m"}]}
JSON
for side in a b; do
  "$build/orchestrator/storbed" run "$work/aa.json" --out "$work/$side" --work-dir "$work" \
    >"$work/$side.log" 2>&1
done
set +e
"$build/orchestrator/storbed" compare "$work/a" "$work/b" --json >"$work/compare.json"
echo "compare exit: $?"
set -e
python3 - "$work/compare.json" <<'PY'
import collections, json, sys
doc = json.load(open(sys.argv[1]))
for metric in ("iops", "p99_us"):
    rows = [r for r in doc["rows"] if r["metric"] == metric]
    counts = collections.Counter(r["verdict"] for r in rows)
    print(f"{metric}: {len(rows)} cells: " + ", ".join(f"{v} {n}" for v, n in sorted(counts.items())))
print("comparable:", doc["comparable"], "differences:", [d["item"] for d in doc["differences"]])
PY
rm -rf "$work"
