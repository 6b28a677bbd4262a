#!/usr/bin/env bash
# Benchmark: how much depth the bare-metal ladder loses between the application (L0) and
# the loop device (L3). storbed runs io_uring direct 4k random reads on a loop device over
# a filled file at iodepth 1, 8 and 32, completions reaped by sleeping waits and by polling,
# each combination repeated in a shuffled order so drift hits all alike. Prints L0 and L3
# per run, then per combination the medians as a fraction of iodepth against the bounds
# (L0 within 2%, L3 within 10%). Not a test: the L3 figure depends on how fast this
# machine's CPUs get back to a completed IO.
#
#   bench/ladder_accuracy.sh [BUILD_DIR] [--repeats N] [--runtime S] [--out DIR]
set -euo pipefail

build=${1:-build}; shift || true
repeats=3 runtime=4 out=""
while (($#)); do
  case $1 in
    --repeats) repeats=$2; shift 2 ;;
    --runtime) runtime=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) echo "ladder_accuracy: unknown option $1" >&2; exit 2 ;;
  esac
done
storbed=$build/orchestrator/storbed
[[ -x $storbed ]] || { echo "ladder_accuracy: no storbed at $storbed (build first)" >&2; exit 1; }
[[ $(id -u) -eq 0 ]] || { echo "ladder_accuracy: needs root (loop device)" >&2; exit 1; }

work=$(mktemp -d /var/tmp/storbed-bench-XXXXXX)
trap 'rm -rf "$work"' EXIT
[[ -n $out ]] || out=$work/results
cat >"$work/scenario.json" <<JSON
{"name": "ladder-accuracy", "targets": ["bare-metal"], "disk": {"size": "256m"},
 "repeats": $repeats, "order": "random",
 "jobs": [{"name": "randread", "pattern": "random", "bs": "4k", "ioengine": "io_uring",
           "direct": true, "runtime": $runtime, "iodepth": [1, 8, 32], "reap": ["wait", "poll"]}]}
JSON
echo "# ladder accuracy: bare metal, loop device (direct IO) over a filled 256 MiB file, io_uring 4k randread direct, ${runtime}s x $repeats repeats"
echo "# storbed $(git -C "$(dirname "$0")/.." rev-parse --short HEAD 2>/dev/null), kernel $(uname -r), $(nproc) CPUs"
"$storbed" run "$work/scenario.json" --out "$out" >"$work/run.log" 2>&1 ||
  { cat "$work/run.log" >&2; exit 1; }

python3 - "$out/results.json" <<'PY'
import json, statistics, sys
from collections import defaultdict
runs = json.load(open(sys.argv[1]))
groups = defaultdict(list)
for r in runs:
    if r["status"] != "ok" or not r.get("ladder"):
        continue
    layers = {l["layer"]: l for l in r["ladder"]["layers"]}
    l0, l3 = layers["L0 app"]["avg_depth"], layers["L3 host device"]["avg_depth"]
    qd, reap = r["params"]["job.iodepth"], r["params"]["job.reap"]
    iops = r["result"]["iops"]
    print(f"{r['run_id']:<45} L0 {l0:6.2f}  L3 {l3:6.2f}  {iops:8.0f} IOPS")
    groups[(reap, qd)].append((l0 / qd, l3 / qd, iops))
print()
print(f"{'reap':<5} {'iodepth':>7} {'L0/qd':>7} {'L3/qd':>7} {'IOPS':>8}  L0 within 2%  L3 within 10%")
for (reap, qd), v in sorted(groups.items(), key=lambda kv: (kv[0][0] != "wait", kv[0][1])):
    l0 = statistics.median(x[0] for x in v)
    l3 = statistics.median(x[1] for x in v)
    iops = statistics.median(x[2] for x in v)
    ok = lambda good: "yes" if good else "NO"
    print(f"{reap:<5} {qd:>7} {l0:7.3f} {l3:7.3f} {iops:8.0f}  {ok(abs(l0 - 1) <= 0.02):<12}  "
          f"{ok(abs(l3 - 1) <= 0.10)}")
PY
