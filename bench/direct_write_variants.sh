#!/usr/bin/env bash
# Benchmark: one O_DIRECT random IO cell, run side by side in several variants, to take
# apart what makes one tool's requests slower at the device (the open O_DIRECT write gap
# in docs/bench-notes.md, "The misses after steal"). Variants, in rotating order each round:
#   agent       the standalone agent as the grid runs it (O_DIRECT IOs two per call)
#   agent-one   the same with submit_batch 1 (one IO per call, fio's default)
#   fio         fio 3.x as the grid runs it (buffers filled once, lightly scrambled per IO)
#   fio-refill  fio with refill_buffers (fresh random data for every IO)
# Per run: IOPS, the disk's ms per request (/proc/diskstats around the run), the host's
# steal (ms, all CPUs), and with --pages the share of neighbouring buffer pages that are
# not physical neighbours (/proc/PID/pagemap 1.2 s in; 1.000: every page its own segment).
# Per variant: median IOPS and ms per request, and each round's ratio to fio. Not a test.
#
#   bench/direct_write_variants.sh [BUILD_DIR] [--rw read|write] [--engine E] [--depth N]
#                                  [--bs 16k] [--rounds N] [--runtime S] [--dir DIR] [--pages]
set -euo pipefail
# shellcheck source=bench/host_counters.sh
source "$(dirname "$0")/host_counters.sh"
build=build rw=write engine=libaio depth=64 bs=16k rounds=6 runtime=2 dir=/var/tmp pages=0
[[ $# -gt 0 && $1 != --* ]] && { build=$1; shift; }
while (($#)); do
  case $1 in
    --rw) rw=$2; shift 2 ;;
    --engine) engine=$2; shift 2 ;;
    --depth) depth=$2; shift 2 ;;
    --bs) bs=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --runtime) runtime=$2; shift 2 ;;
    --dir) dir=$2; shift 2 ;;
    --pages) pages=1; shift ;;
    *) echo "direct_write_variants: unknown option $1" >&2; exit 2 ;;
  esac
done
agent=$build/guest-agent/storbed-agent
[[ -x $agent ]] || { echo "direct_write_variants: no agent at $agent (build first)" >&2; exit 1; }
command -v fio >/dev/null || { echo "direct_write_variants: fio is not installed (apt-get install fio)" >&2; exit 1; }
case $bs in *k) bytes=$((${bs%k} << 10)) ;; *m) bytes=$((${bs%m} << 20)) ;; *) bytes=$bs ;; esac

work=$(mktemp -d "$dir/storbed-variants-XXXXXX")
trap 'rm -rf "$work"' EXIT
file=$work/data.raw
# Real data: reads of holes never reach the device.
dd if=/dev/urandom of="$file" bs=1M count=512 status=none conv=fsync
dev=$(disk_of "$file")
[[ -n $dev ]] || { echo "direct_write_variants: no disk under $dir (tmpfs?)" >&2; exit 1; }
device_counters() {  # requests and ms in them, for the cell's direction
  awk -v d="$dev" -v rw="$rw" '$3 == d { if (rw == "read") print $4, $7; else print $8, $11 }' /proc/diskstats
}

# The share of neighbouring pages of the process's IO buffers (its anonymous mappings of
# 0.9-70 MiB, the largest) that are not physical neighbours. Needs root for frame numbers.
page_breaks() {
  python3 - "$@" <<'PY'
import struct, sys
best = None
for pid in sys.argv[1:]:
    try:
        maps = open(f"/proc/{pid}/maps").read().splitlines()
    except OSError:
        continue
    for line in maps:
        f = line.split()
        a, b = (int(x, 16) for x in f[0].split("-"))
        if not 0.9 * 2**20 <= b - a <= 70 * 2**20 or len(f) > 5 or "rw" not in f[1]:
            continue
        with open(f"/proc/{pid}/pagemap", "rb") as pm:
            pm.seek(a // 4096 * 8)
            raw = pm.read((b - a) // 4096 * 8)
        fr = [e & ((1 << 55) - 1) if e >> 63 else None for (e,) in struct.iter_unpack("Q", raw)]
        pairs = [(x, y) for x, y in zip(fr, fr[1:]) if x and y]
        if len(pairs) > 64 and (best is None or b - a > best[0]):
            best = (b - a, sum(y != x + 1 for x, y in pairs) / len(pairs))
print("-" if best is None else f"{best[1]:.3f}")
PY
}

cat >"$work/job.json" <<JOB
{"name": "variants", "target": "$file", "pattern": "random", "rw": "$rw", "ioengine": "$engine",
 "bs": $bytes, "iodepth": $depth, "runtime": $runtime, "direct": true, "seed": 1,
 "cache": "cold", "fadvise_hint": "random", "submit_batch": SUBMIT_BATCH}
JOB
run() {  # $1 variant; starts it in the background ($! is its pid)
  case $1 in
    agent | agent-one)
      local batch=0
      [[ $1 == agent-one ]] && batch=1
      sed "s/SUBMIT_BATCH/$batch/" "$work/job.json" >"$work/job-$1.json"
      setsid -w "$agent" --standalone "$work/job-$1.json" >"$work/out.json" &
      ;;
    fio | fio-refill)
      local refill=()
      [[ $1 == fio-refill ]] && refill=(--refill_buffers)
      fio --name=variants --filename="$file" --rw="rand$rw" --bs="$bs" --ioengine="$engine" \
        --iodepth="$depth" --direct=1 --invalidate=1 --runtime="$runtime" --time_based \
        "${refill[@]}" --output-format=json >"$work/out.json" &
      ;;
  esac
}
iops_of() {
  case $1 in
    agent*) python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["iops"])' "$work/out.json" ;;
    fio*) python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["jobs"][0][sys.argv[2]]["iops"])' \
      "$work/out.json" "$rw" ;;
  esac
}

variants=(agent agent-one fio fio-refill)
runs=$work/runs.tsv
echo "# $rw O_DIRECT $engine depth $depth $bs, $rounds rounds of ${runtime}s, 512 MiB file on /dev/$dev"
echo "# storbed $(git -C "$(dirname "$0")/.." rev-parse --short HEAD 2>/dev/null), $(fio --version), kernel $(uname -r)"
for ((round = 1; round <= rounds; round++)); do
  k=$((round % ${#variants[@]}))
  for variant in "${variants[@]:k}" "${variants[@]:0:k}"; do
    sync "$file"
    read -r q0 ms0 < <(device_counters)
    steal0=$(steal_ms)
    run "$variant"
    pid=$!
    breaks=-
    if ((pages)); then
      sleep 1.2
      mapfile -t children < <(pgrep -P "$pid" || true)
      breaks=$(page_breaks "$pid" "${children[@]}")
    fi
    wait "$pid"
    steal1=$(steal_ms)
    read -r q1 ms1 < <(device_counters)
    iops=$(iops_of "$variant")
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$round" "$variant" "$iops" \
      "$((q1 - q0))" "$((ms1 - ms0))" "$((steal1 - steal0))" >>"$runs"
    printf 'round %d  %-10s  %8.0f IOPS  steal %5d ms  page breaks %s\n' "$round" "$variant" \
      "$iops" "$((steal1 - steal0))" "$breaks"
  done
done

python3 - "$runs" <<'PY'
import collections, statistics, sys
iops = collections.defaultdict(dict)
ms_per_req = collections.defaultdict(list)
for line in open(sys.argv[1]):
    round_, variant, v, reqs, ms, _ = line.split("\t")
    iops[variant][round_] = float(v)
    if int(reqs):
        ms_per_req[variant].append(int(ms) / int(reqs))
print(f"\n{'variant':12} {'median IOPS':>11} {'ms/req':>7}  {'/fio per round (median, above in)':>34}")
for variant, by_round in iops.items():
    ratios = [by_round[r] / iops["fio"][r] for r in by_round if iops["fio"].get(r)]
    above = sum(r > 1 for r in ratios)
    print(f"{variant:12} {statistics.median(by_round.values()):11.0f} "
          f"{statistics.median(ms_per_req[variant]) if ms_per_req[variant] else 0:7.3f}  "
          f"{statistics.median(ratios):22.3f}, {above} of {len(ratios)}")
PY
