#!/usr/bin/env bash
# Benchmark: what the agent's samplers cost. Bare metal, a loop device (direct IO) over a
# data-filled file, io_uring 4k random read: IOPS with every sampler on (inflight every
# 10 ms; diskstats, meminfo, vmstat, iowait every 100 ms) vs all off, interleaved round by
# round so drift hits both alike. Prints each round, the medians and on/off (goal >= 0.98).
#
#   bench/sampler_overhead.sh [BUILD_DIR] [--rounds N] [--runtime S] [--iodepth N]
set -euo pipefail

build=${1:-build}; shift || true
rounds=5 runtime=5 iodepth=32
while (($#)); do
  case $1 in
    --rounds) rounds=$2; shift 2 ;;
    --runtime) runtime=$2; shift 2 ;;
    --iodepth) iodepth=$2; shift 2 ;;
    *) echo "sampler_overhead: unknown option $1" >&2; exit 2 ;;
  esac
done
agent=$build/guest-agent/storbed-agent
[[ -x $agent ]] || { echo "sampler_overhead: no agent at $agent (build first)" >&2; exit 1; }
[[ $(id -u) -eq 0 ]] || { echo "sampler_overhead: needs root (loop device)" >&2; exit 1; }

work=$(mktemp -d /var/tmp/storbed-bench-XXXXXX)
loop=""
cleanup() { [[ -n $loop ]] && losetup -d "$loop"; rm -rf "$work"; }
trap cleanup EXIT
dd if=/dev/urandom of="$work/data.raw" bs=1M count=256 status=none conv=fsync
loop=$(losetup -f --show --direct-io=on "$work/data.raw")

run() {  # $1 = inflight ms, $2 = stats ms, $3 = seed
  cat >"$work/job.json" <<JOB
{"name": "overhead", "target": "$loop", "pattern": "random", "rw": "read", "ioengine": "io_uring",
 "bs": 4096, "iodepth": $iodepth, "runtime": $runtime, "direct": true, "seed": $3,
 "cache": "cold", "inflight_sample_ms": $1, "stats_sample_ms": $2}
JOB
  "$agent" --standalone "$work/job.json" |
    python3 -c 'import json,sys; r=json.load(sys.stdin); print(round(r["iops"]), len(r.get("timelines", [])))'
}

echo "# sampler overhead: $loop, io_uring 4k randread direct, iodepth $iodepth, ${runtime}s x $rounds rounds"
on=() off=()
for ((i = 1; i <= rounds; i++)); do
  read -r a ta < <(run 10 100 "$i")
  read -r b tb < <(run 0 0 "$i")
  echo "round $i  samplers on $a IOPS ($ta timelines)  off $b IOPS ($tb timelines)"
  on+=("$a") off+=("$b")
done
python3 - "${on[*]}" "${off[*]}" <<'PY'
import statistics, sys
on = list(map(int, sys.argv[1].split())); off = list(map(int, sys.argv[2].split()))
mon, moff = statistics.median(on), statistics.median(off)
print(f"median on {mon:.0f} IOPS, off {moff:.0f} IOPS, on/off {mon / moff:.4f} "
      f"(per-round {', '.join(f'{a / b:.3f}' for a, b in zip(on, off))})")
PY
