#!/usr/bin/env bash
# Benchmark: time to a verdict, adaptive against fixed-n (issue 34). Guests on null-co disks
# (TCG here), kept booted across rounds (reboot: per_machine), 4k random io_uring QD4 jobs of 2 s:
#   1. a pilot: the A/B below, fixed-n, PILOT rounds (10 unless --pilot says), and the rounds
#      the tool advises for a 10% change (the largest "10% about N runs" over the primary
#      metrics of `storbed compare` on it);
#   2. A/B, adaptive: null_latency 20 ms against 24 ms (+20%), storbed run --until-conclusive
#      --by disk.null_latency --budget ROUNDS;
#   3. A/A, adaptive: one 20 ms disk, job.seed [1, 2] (the seed moves no null-co request),
#      asking "the same within +-AA_NOISE%?" (--noise; 10 unless --aa-noise says: the change
#      the fixed-n run is sized to resolve, so both designs answer the same question);
#   4. A/B, fixed-n: the same A/B with the advised rounds, then storbed compare.
# Prints each design's rounds, wall time, why it stopped and its verdicts.
#
#   bench/time_to_verdict.sh BUILD_DIR [OUT_DIR] [--budget ROUNDS] [--aa-noise PCT]
#                            [--latency A,B] [--depth N] [--pilot ROUNDS]
# --latency (default 20ms,24ms) and --depth (default 4) set the A/B's two null-co latencies
# (the A/A runs the first) and the jobs' iodepth. Under TCG a p99 carries the host's
# scheduling hiccups (about 6 ms here) on top of the null-co latency, so +20% latency moves
# it by less: by 11-20% in the advised fixed-n runs of docs/compare.md's runs 8-21. A longer
# latency makes the runs alike, and the advised fixed-n run shrinks towards the adaptive
# run's first look (5 rounds): 9-13 rounds at 30 ms (runs 14-16), 12-40 at 20 ms (17, 19-21).
set -euo pipefail

build=${1:?usage: time_to_verdict.sh BUILD_DIR [OUT_DIR] [--budget ROUNDS]}; shift
out=/var/tmp/storbed-time-to-verdict
if (($#)) && [[ $1 != --* ]]; then out=$1; shift; fi
budget=30
pilot=10
aa_noise=10
latency=20ms,24ms
depth=4
while (($#)); do
  case $1 in
    --budget) budget=$2; shift 2 ;;
    --pilot) pilot=$2; shift 2 ;;
    --aa-noise) aa_noise=$2; shift 2 ;;
    --latency) latency=$2; shift 2 ;;
    --depth) depth=$2; shift 2 ;;
    *) echo "time_to_verdict: unknown option $1" >&2; exit 2 ;;
  esac
done
[[ $pilot =~ ^[0-9]+$ && $pilot -ge 2 ]] || { echo "time_to_verdict: --pilot wants 2 or more rounds" >&2; exit 2; }
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

# with_repeats NAME N: ab.json with `repeats` N, as $out/NAME.json.
with_repeats() {
  python3 - "$out/ab.json" "$out/$1.json" "$2" "ttv-$1" <<'PY'
import json, sys
s = json.load(open(sys.argv[1])); s["repeats"] = int(sys.argv[3]); s["name"] = sys.argv[4]
json.dump(s, open(sys.argv[2], "w"))
PY
}

# The advice comes from a pilot of its own, as a user would get it: a fixed-n A/B of
# PILOT rounds, then storbed compare. Not from the adaptive A/B's rounds: they stop early
# where the runs happened to agree, and that same luck would shrink the advice the
# adaptive run is measured against.
with_repeats ab-pilot "$pilot"
run ab-pilot "$out/ab-pilot.json"
advice=$("$storbed" compare "$out/ab-pilot" --by disk.null_latency 2>&1 |
         grep -E '^  (iops|p50_us|p99_us): ' | sed -nE 's/.*10% about ([0-9]+) runs.*/\1/p' |
         sort -n | tail -1 || true)  # compare exits 4 on "worse": not an error here
advice=${advice:-$budget}
echo "the tool's advice for a 10% change, from a pilot of $pilot rounds: $advice rounds"
run ab-adaptive "$out/ab.json" --until-conclusive --by disk.null_latency --budget "$budget"
run aa-adaptive "$out/aa.json" --until-conclusive --by job.seed --budget "$budget" \
  --noise "$aa_noise"
with_repeats ab-fixed "$advice"
run ab-fixed "$out/ab-fixed.json"
echo "design                 rounds, wall time, efficiency, why it stopped; then the verdicts"
summary ab-adaptive "A/B adaptive" disk.null_latency
summary aa-adaptive "A/A adaptive +-$aa_noise%" job.seed
summary ab-pilot "A/B pilot" disk.null_latency
summary ab-fixed "A/B fixed-n (advised)" disk.null_latency
python3 - "$out" <<'PY'
import sys
d = sys.argv[1]
wall = {n: float(open(f"{d}/{n}.wall").read()) for n in ("ab-adaptive", "aa-adaptive", "ab-fixed")}
for n in ("ab-adaptive", "aa-adaptive"):
    print(f"{n} wall / advised fixed-n wall: {wall[n] / wall['ab-fixed']:.2f}")
PY
