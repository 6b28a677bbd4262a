#!/usr/bin/env bash
# Benchmark: what job.trace costs. One storbed session, order interleaved, job.trace
# [false, true]: every round boots each machine once and runs both, shuffled, so drift hits
# both alike; storbed compare --by job.trace then pairs them by round (docs/compare.md) and
# prints traced/untraced IOPS with its interval. Cells: a virtio-blk guest (TCG here) on a
# filled file, 4k random io_uring QD8 and 64k sequential psync QD1, and bare metal (a loop
# device over the same file). Goal: traced/untraced >= 0.8 (issue 33).
#
#   bench/trace_overhead.sh BUILD_DIR [OUT_DIR] [--rounds N] [--runtime S]
set -euo pipefail

build=${1:?usage: trace_overhead.sh BUILD_DIR [OUT_DIR] [--rounds N] [--runtime S]}; shift
out=/var/tmp/storbed-trace-overhead
if (($#)) && [[ $1 != --* ]]; then out=$1; shift; fi
rounds=6 runtime=3
while (($#)); do
  case $1 in
    --rounds) rounds=$2; shift 2 ;;
    --runtime) runtime=$2; shift 2 ;;
    *) echo "trace_overhead: unknown option $1" >&2; exit 2 ;;
  esac
done
storbed=$build/orchestrator/storbed
[[ -x $storbed ]] || { echo "trace_overhead: no storbed at $storbed (build first)" >&2; exit 1; }
[[ $(id -u) -eq 0 ]] || { echo "trace_overhead: needs root (tracefs, loop devices)" >&2; exit 1; }

rm -rf "$out"
mkdir -p "$out"
cat >"$out/trace-overhead.json" <<JSON
{"name": "trace-overhead", "targets": ["virtio-blk", "bare-metal"],
 "machine": {"vcpus": 2, "memory": "512m"},
 "disk": {"size": "256m", "cache": "none", "aio": "io_uring"},
 "order": "interleaved", "order_seed": 7, "repeats": $rounds,
 "jobs": [{"name": "rand-4k-qd8", "pattern": "random", "rw": "read", "bs": "4k", "iodepth": 8,
           "ioengine": "io_uring", "runtime": $runtime, "seed": 42, "trace": [false, true]},
          {"name": "seq-64k-qd1", "pattern": "sequential", "rw": "read", "bs": "64k",
           "iodepth": 1, "ioengine": "psync", "runtime": $runtime, "trace": [false, true]}]}
JSON
start=$(date +%s)
"$storbed" run "$out/trace-overhead.json" --out "$out/results" >"$out/run.log" 2>&1 || {
  echo "trace_overhead: the run failed (log: $out/run.log)" >&2
  tail -20 "$out/run.log" >&2
  exit 1
}
echo "session took $(($(date +%s) - start)) s ($rounds rounds); results in $out/results"
"$storbed" compare "$out/results" --by job.trace --json >"$out/compare.json" || true
python3 - "$out/compare.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
reports = doc.get("comparisons", [doc])
print("traced / untraced IOPS, paired by round (95% interval), and the medians")
for rep in reports:
    for row in rep["rows"]:
        if row["metric"] != "iops":
            continue
        lo, hi = row.get("ci_low"), row.get("ci_high")
        ci = f"[{lo:.3f}, {hi:.3f}]" if lo is not None else "[-]"
        print(f"  {row['cell']:<44} {row['ratio']:.3f} {ci}  {row['median_base']:.0f} -> "
              f"{row['median_cand']:.0f} IOPS  n={row['n_base']}  {row['design']}")
PY
