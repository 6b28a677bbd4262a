#!/usr/bin/env bash
# Benchmark: time to a verdict, adaptive against fixed-n (issue 34). Guests on null-co disks
# (TCG here), kept booted across rounds (reboot: per_machine), 4k random io_uring QD4 jobs of 2 s
# (QD4: about 600 IOs a run, so p99 is an estimate and not the run's slowest IO or two):
#   1. A/B, adaptive: null_latency 10 ms against 12 ms (+20%), storbed run --until-conclusive
#      --by disk.null_latency --budget ROUNDS;
#   2. A/A, adaptive: one 10 ms disk, job.seed [1, 2] (the seed moves no null-co request),
#      asking "the same within +-AA_NOISE%?" (--noise; 5 unless --aa-noise says);
#   3. A/B, fixed-n: the same A/B with the rounds the tool advises for a 10% change (the
#      largest "10% about N runs" over the primary metrics of `storbed compare` on run 1's
#      rounds, judged as a fixed-n design), then storbed compare.
# Prints each design's rounds, wall time, why it stopped and its verdicts.
#
#   bench/time_to_verdict.sh BUILD_DIR [OUT_DIR] [--budget ROUNDS] [--aa-noise PCT]
#                            [--latency A,B] [--depth N]
# --latency (default 10ms,12ms) and --depth (default 4) set the A/B's two null-co latencies
# (the A/A runs the first) and the jobs' iodepth. Under TCG a p99 carries the host's
# scheduling hiccups (several ms) on top of the null-co latency, so +2 ms on 10 ms moves it
# by less than 20%; 100ms,120ms at depth 32 (about 580 IOs a run) keeps the shift whole.
set -euo pipefail

build=${1:?usage: time_to_verdict.sh BUILD_DIR [OUT_DIR] [--budget ROUNDS]}; shift
out=/var/tmp/storbed-time-to-verdict
if (($#)) && [[ $1 != --* ]]; then out=$1; shift; fi
budget=30
aa_noise=5
latency=10ms,12ms
depth=4
while (($#)); do
  case $1 in
    --budget) budget=$2; shift 2 ;;
    --aa-noise) aa_noise=$2; shift 2 ;;
    --latency) latency=$2; shift 2 ;;
    --depth) depth=$2; shift 2 ;;
    *) echo "time_to_verdict: unknown option $1" >&2; exit 2 ;;
  esac
done
storbed=$build/orchestrator/storbed
[[ -x $storbed ]] || { echo "time_to_verdict: no storbed at $storbed (build first)" >&2; exit 1; }

rm -rf "$out"
mkdir -p "$out"
[[ $latency =~ ^([0-9]+[mu]?s),([0-9]+[mu]?s)$ ]] ||
  { echo "time_to_verdict: --latency wants A,B (e.g. 10ms,12ms), not $latency" >&2; exit 2; }
lat_a=${BASH_REMATCH[1]} lat_b=${BASH_REMATCH[2]}
[[ $depth =~ ^[0-9]+$ ]] || { echo "time_to_verdict: --depth wants a number" >&2; exit 2; }
job='"jobs": [{"name": "qd'$depth'", "pattern": "random", "rw": "read", "bs": "4k", "iodepth": '$depth',
               "ioengine": "io_uring", "runtime": 2'
cat >"$out/ab.json" <<JSON
{"name": "ttv-ab", "targets": ["virtio-blk"], "machine": {"vcpus": 2, "memory": "256m"},
 "disk": {"size": "16m", "driver": "null-co", "null_latency": ["$lat_a", "$lat_b"]},
 "order": "interleaved", "order_seed": 5, "reboot": "per_machine", $job}]}
JSON
cat >"$out/aa.json" <<JSON
{"name": "ttv-aa", "targets": ["virtio-blk"], "machine": {"vcpus": 2, "memory": "256m"},
 "disk": {"size": "16m", "driver": "null-co", "null_latency": "$lat_a"},
 "order": "interleaved", "order_seed": 5, "reboot": "per_machine", $job, "seed": [1, 2]}]}
JSON

# run NAME ARGS...: times one storbed run into $out/NAME, its log beside it.
run() {
  local name=$1; shift
  local start=$(date +%s.%N)
  "$storbed" run "$@" --out "$out/$name" >"$out/$name.log" 2>&1 || true
  echo "$(date +%s.%N) - $start" | bc >"$out/$name.wall"
}
summary() {
  python3 - "$out/$1" "$(cat "$out/$1.wall")" "$2" <<'PY'
import json, re, sys
d, wall, label = sys.argv[1], float(sys.argv[2]), sys.argv[3]
m = json.load(open(d + "/manifest.json"))
seq = m.get("sequential") or {}
runs = json.load(open(d + "/results.json"))
rounds = max((r["params"].get("repeat", 0) for r in runs), default=0)
print(f"{label:<22} rounds {rounds:>3}  wall {wall:7.1f} s  efficiency "
      f"{m.get('efficiency', {}).get('share', 0):.2f}  {seq.get('stopped', 'fixed-n')}")
PY
  "$storbed" compare "$out/$1" --by "$3" 2>&1 | grep -E '^  (iops|p50_us|p99_us) ' | sed 's/^/    /' || true
}

run ab-adaptive "$out/ab.json" --until-conclusive --by disk.null_latency --budget "$budget"
run aa-adaptive "$out/aa.json" --until-conclusive --by job.seed --budget "$budget" \
  --noise "$aa_noise"
# The advice, from the A/B's rounds judged as a fixed-n design (the manifest without its
# sequential record).
cp -r "$out/ab-adaptive" "$out/ab-pilot"
python3 - "$out/ab-pilot/manifest.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1])); m.pop("sequential", None); json.dump(m, open(sys.argv[1], "w"))
PY
advice=$("$storbed" compare "$out/ab-pilot" --by disk.null_latency 2>&1 |
         grep -E '^  (iops|p50_us|p99_us): ' | sed -nE 's/.*10% about ([0-9]+) runs.*/\1/p' |
         sort -n | tail -1 || true)  # compare exits 4 on "worse": not an error here
advice=${advice:-$budget}
echo "the tool's advice for a 10% change, from the adaptive A/B's rounds: $advice rounds"
python3 - "$out/ab.json" "$advice" <<'PY'
import json, sys
s = json.load(open(sys.argv[1])); s["repeats"] = int(sys.argv[2]); s["name"] = "ttv-ab-fixed"
json.dump(s, open(sys.argv[1].replace("ab.json", "ab-fixed.json"), "w"))
PY
run ab-fixed "$out/ab-fixed.json"
echo "design                 rounds, wall time, efficiency, why it stopped; then the verdicts"
summary ab-adaptive "A/B adaptive" disk.null_latency
summary aa-adaptive "A/A adaptive +-$aa_noise%" job.seed
summary ab-fixed "A/B fixed-n (advised)" disk.null_latency
python3 - "$out" <<'PY'
import sys
d = sys.argv[1]
wall = {n: float(open(f"{d}/{n}.wall").read()) for n in ("ab-adaptive", "aa-adaptive", "ab-fixed")}
for n in ("ab-adaptive", "aa-adaptive"):
    print(f"{n} wall / advised fixed-n wall: {wall[n] / wall['ab-fixed']:.2f}")
PY
