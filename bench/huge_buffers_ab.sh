#!/usr/bin/env bash
# Benchmark: the agent's IO buffers on 4 KiB pages (the default, as fio's malloc) against
# transparent huge pages (job field huge_buffers), O_DIRECT random IO on one host file of
# real data. Rounds alternate which side goes first. Per cell: median IOPS of each side,
# huge/4k, CPU microseconds per IO (user + sys of the whole process) and the device's
# average request size from /proc/diskstats around each run (what the segment count does
# to requests: a device with fewer segments per request than a 4 KiB-page IO has pages
# gets that IO split). Not a test: absolute numbers vary by host.
#
#   bench/huge_buffers_ab.sh [BUILD_DIR] [--rounds N] [--runtime S] [--size MiB] [--dir DIR]
#                            [--cells REGEX]      (names: write-io_uring-qd16-1m)
set -euo pipefail
build=build rounds=3 runtime=5 size_mib=512 dir=/var/tmp cells=''
[[ $# -gt 0 && $1 != --* ]] && { build=$1; shift; }
while [[ $# -gt 0 ]]; do
  case $1 in
    --rounds) rounds=$2; shift 2 ;;
    --runtime) runtime=$2; shift 2 ;;
    --size) size_mib=$2; shift 2 ;;
    --dir) dir=$2; shift 2 ;;
    --cells) cells=$2; shift 2 ;;
    *) echo "huge_buffers_ab: unknown option $1" >&2; exit 2 ;;
  esac
done
agent=$build/guest-agent/storbed-agent
[[ -x $agent ]] || { echo "huge_buffers_ab: no agent at $agent (build first)" >&2; exit 1; }
[[ -x /usr/bin/time ]] || { echo "huge_buffers_ab: /usr/bin/time is not installed (apt-get install time)" >&2; exit 1; }

grid=()
for rw in read write; do
  for engine in psync io_uring; do
    for qd in 1 16; do
      [[ $engine == psync && $qd != 1 ]] && continue
      for bs in 256k 1m; do
        name=$rw-$engine-qd$qd-$bs
        [[ -n $cells && ! $name =~ $cells ]] && continue
        grid+=("$name $rw $engine $qd $bs")
      done
    done
  done
done
((${#grid[@]})) || { echo "huge_buffers_ab: no cell matches '$cells'" >&2; exit 2; }

work=$(mktemp -d "$dir/storbed-huge-XXXXXX")
trap 'rm -rf "$work"' EXIT
file=$work/data.raw
# Real data: reads of holes never reach the device.
dd if=/dev/urandom of="$file" bs=1M count="$size_mib" status=none conv=fsync
# The device the file lives on, for its diskstats (a partition's own line, if it is one).
dev=$(lsblk -no KNAME "$(df --output=source "$file" | tail -1)" | head -1)
runs=$work/runs.tsv
: >"$runs"

requests() { awk -v d="$dev" '$3 == d {printf "%.0f %.0f\n", $4 + $8, $6 + $10}' /proc/diskstats; }

# One run: prints "iops ios cpu_s avg_request_kib".
run_agent() {
  local rw=$1 engine=$2 qd=$3 bs=$4 huge=$5 seed=$6
  local n=${bs%[km]}
  case $bs in *k) n=$((n << 10)) ;; *m) n=$((n << 20)) ;; esac
  cat >"$work/job.json" <<JOB
{"name": "ab", "target": "$file", "pattern": "random", "rw": "$rw", "ioengine": "$engine",
 "bs": $n, "iodepth": $qd, "runtime": $runtime, "direct": true, "seed": $seed, "cache": "cold",
 "huge_buffers": $huge}
JOB
  local r0 s0 r1 s1 user sys
  read -r r0 s0 < <(requests)
  setsid -w /usr/bin/time -f '%U %S' -o "$work/rusage" "$agent" --standalone "$work/job.json" \
    >"$work/out.json"
  read -r r1 s1 < <(requests)
  read -r user sys <"$work/rusage"
  python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
reqs, sectors = int(sys.argv[2]), int(sys.argv[3])
print(d["iops"], d["ios"], float(sys.argv[4]) + float(sys.argv[5]),
      sectors * 512 / 1024 / reqs if reqs else 0, d.get("huge_buffer_bytes", 0))' \
    "$work/out.json" $((r1 - r0)) $((s1 - s0)) "$user" "$sys"
}

echo "# storbed $(git -C "$(dirname "$0")/.." rev-parse --short HEAD 2>/dev/null): huge_buffers A/B, ${#grid[@]} cells, $rounds rounds, ${runtime}s per run, ${size_mib} MiB file on $dev"
echo "# $dev: max_segments $(cat /sys/block/"$dev"/queue/max_segments 2>/dev/null || echo '?'), transparent_hugepage $(cat /sys/kernel/mm/transparent_hugepage/enabled)"
for ((round = 1; round <= rounds; round++)); do
  for ((i = 0; i < ${#grid[@]}; i++)); do
    read -r name rw engine qd bs <<<"${grid[i]}"
    order=(false true)
    (((round + i) % 2 == 0)) && order=(true false)
    for huge in "${order[@]}"; do
      result=$(run_agent "$rw" "$engine" "$qd" "$bs" "$huge" "$round")
      printf '%s\t%s\t%s\t%s\n' "$name" "$huge" "$round" "${result// /$'\t'}" >>"$runs"
    done
  done
  echo "round $round done"
done

python3 - "$runs" <<'PY'
import collections, statistics, sys
runs = collections.defaultdict(lambda: collections.defaultdict(list))
order = []
for line in open(sys.argv[1]):
    cell, huge, _round, iops, ios, cpu_s, req_kib, huge_bytes = line.split("\t")
    if cell not in order: order.append(cell)
    runs[cell][huge].append((float(iops), int(ios), float(cpu_s), float(req_kib), int(huge_bytes)))
print(f"{'cell':24} {'4k IOPS':>8} {'huge IOPS':>9} {'huge/4k':>7} {'CPU us/IO 4k':>12} "
      f"{'huge':>6} {'req KiB 4k':>10} {'huge':>6} {'huge MiB':>8}")
for cell in order:
    a, b = runs[cell]["false"], runs[cell]["true"]
    if not a or not b: continue
    ai = statistics.median(r[0] for r in a); bi = statistics.median(r[0] for r in b)
    cpu = lambda rs: sum(r[2] for r in rs) / max(1, sum(r[1] for r in rs)) * 1e6
    req = lambda rs: statistics.median(r[3] for r in rs)
    print(f"{cell:24} {ai:8.0f} {bi:9.0f} {bi / ai:7.3f} {cpu(a):12.1f} {cpu(b):6.1f} "
          f"{req(a):10.0f} {req(b):6.0f} {min(r[4] for r in b) / 2**20:8.0f}")
PY
