#!/usr/bin/env bash
# Benchmark: storbed-agent vs fio on the same host file, side by side in one run.
# Declared as data below (workloads x rounds); each round runs agent then fio for every
# workload, so drift on this noisy machine hits both alike. Prints IOPS per round, the
# median of each, and the agent/fio ratio. Not a test: absolute numbers vary by host.
#
#   bench/agent_vs_fio.sh [BUILD_DIR] [--rounds N] [--runtime S] [--size MiB] [--dir DIR]
set -euo pipefail

build=${1:-build}; shift || true
rounds=3 runtime=10 size_mib=512 dir=/var/tmp
while (($#)); do
  case $1 in
    --rounds) rounds=$2; shift 2 ;;
    --runtime) runtime=$2; shift 2 ;;
    --size) size_mib=$2; shift 2 ;;
    --dir) dir=$2; shift 2 ;;
    *) echo "agent_vs_fio: unknown option $1" >&2; exit 2 ;;
  esac
done
agent=$build/guest-agent/storbed-agent
command -v fio >/dev/null || { echo "agent_vs_fio: fio is not installed (apt-get install fio)" >&2; exit 1; }
[[ -x $agent ]] || { echo "agent_vs_fio: no agent at $agent (build first)" >&2; exit 1; }

# name engine(storbed) ioengine(fio) iodepth
workloads=(
  "randread-psync-qd1 psync psync 1"
  "randread-uring-qd32 io_uring io_uring 32"
)

work=$(mktemp -d "$dir/storbed-bench-XXXXXX")
trap 'rm -rf "$work"' EXIT
file=$work/data.raw
# Real data: reads of holes never reach the device.
dd if=/dev/urandom of="$file" bs=1M count="$size_mib" status=none conv=fsync

echo "# agent vs fio: 4k random read, O_DIRECT, ${runtime}s per run, ${size_mib} MiB file on $(df --output=source "$dir" | tail -1)"
echo "# storbed $(git -C "$(dirname "$0")/.." rev-parse --short HEAD 2>/dev/null), $(fio --version), kernel $(uname -r)"
declare -A results
for ((round = 1; round <= rounds; round++)); do
  for w in "${workloads[@]}"; do
    read -r name engine ioengine depth <<<"$w"
    cat >"$work/job.json" <<JOB
{"name": "$name", "target": "$file", "pattern": "random", "rw": "read", "ioengine": "$engine",
 "bs": 4096, "iodepth": $depth, "runtime": $runtime, "direct": true, "seed": $round,
 "cache": "cold"}
JOB
    a=$("$agent" --standalone "$work/job.json" | python3 -c 'import json,sys; print(round(json.load(sys.stdin)["iops"]))')
    f=$(fio --name="$name" --filename="$file" --rw=randread --bs=4k --ioengine="$ioengine" \
          --iodepth="$depth" --direct=1 --invalidate=1 --runtime="$runtime" --time_based \
          --randseed="$round" --output-format=json |
        python3 -c 'import json,sys; print(round(json.load(sys.stdin)["jobs"][0]["read"]["iops"]))')
    echo "round $round  $name  agent $a IOPS  fio $f IOPS"
    results[$name]+="$a:$f "
  done
done
echo
for w in "${workloads[@]}"; do
  read -r name _ <<<"$w"
  python3 - "$name" ${results[$name]} <<'PY'
import statistics, sys
name, pairs = sys.argv[1], [tuple(map(int, p.split(":"))) for p in sys.argv[2:]]
a = statistics.median(p[0] for p in pairs); f = statistics.median(p[1] for p in pairs)
ratios = [p[0] / p[1] for p in pairs]
print(f"{name}: median agent {a:.0f} IOPS, fio {f:.0f} IOPS, ratio {a / f:.3f} "
      f"(per-round ratios {', '.join(f'{r:.3f}' for r in ratios)})")
PY
done
