#!/usr/bin/env bash
# Benchmark: storbed-agent vs fio on the same host file, over a grid of cells declared as
# data below (block size x depth x engine x direction x direct/buffered). Each round runs
# every cell with both tools, alternating which goes first, so drift on a noisy machine
# hits both alike. Per cell: median IOPS of each, the agent/fio ratio, the spread across
# rounds (CV) and CPU microseconds per IO from the rusage of each whole process
# (/usr/bin/time: user + sys, start-up included). Not a test: absolute numbers vary by host.
#
#   bench/agent_vs_fio.sh [BUILD_DIR] [--rounds N] [--runtime S] [--size MiB] [--dir DIR]
#                         [--quick] [--cells REGEX] [--cv] [--keep FILE] [--pin CPU]
#   --quick        a small subset (quick_cells) for a fast check
#   --cells REGEX  only the cells whose name matches (names: read-direct-psync-qd1-64k)
#   --cv           the run-to-run spread check: 5 rounds of read-direct-psync-qd1-64k
#   --keep FILE    also write every run (cell tool round iops ios cpu_s, then the device's
#                  requests, ms in them, busy ms, queue ms and flush ms for the cell's
#                  direction, then the host's steal in ms over all CPUs) to FILE
#   --pin CPU      run both tools on that CPU only (taskset -c): the scheduler's placement
#                  and migrations stop adding their own spread to the QD1 cells
#   --summarize FILE  print the table of a --keep FILE (or a partial one) and exit
#   --aa           also run fio a second time in every round (tool fio2, the three in
#                  rotating order), and after the table print fio2 against fio by the same
#                  rules: how many cells fio misses against itself in the same run, the
#                  measured floor under "at least 0.97 in every cell"
#
# Where a cell misses, the device says why: /proc/diskstats of the disk the file is on,
# around each run, splits agent/fio IOPS into the fraction of the run the device was busy,
# the IOs it had in flight while busy, and its time per request (Little's law: IOPS = busy
# x IOs in flight / ms per request). The factor that fell most is the reading: busy or
# in flight is the tool's (it left the device idle or shallow), time per request the
# device's: the disk's speed in those rounds, or the buffer's pages. A 4 KiB page buffer's
# physical contiguity is the kernel's luck of the run, for either tool: a 1 MiB buffer
# here came out as 92 to 256 segments from one process to the next, whether populated by
# MADV_POPULATE_WRITE, page by page or by malloc + memset, and this disk's path costs per
# segment (256 split into two requests; requests per IO shows it). Flushes are taken out
# of busy and in flight: the agent's cold-cache fsync flushes the previous run's O_DIRECT
# writes from the disk's cache (~95 ms here, at depth 1, before its IO phase), which
# counted as ~5% more busy and ~10% fewer in flight for 2 s runs.
#
# Steal: this machine is itself a VM. /proc/stat's steal counts the time its vCPUs were
# ready to run while the host ran something else; the time went missing from whichever
# tool was running, as CPU it did not get and completions it handled late. Each run
# records it, and the summary sets each round's agent/fio ratio against the two runs'
# steal. It is counted around the whole process (start-up and cache drop included) and
# shown per second of its IO time: a ranking of a round's two runs, not a CPU share.
#
# Noise: one round's agent/fio ratio on this machine's disk spreads by 10-19% (log SD),
# so with 3 rounds equal tools would leave dozens of cells below 0.97 by the median rule.
# The summary pools that spread per direction and mode, and says which misses stay below
# 0.97 beyond two standard errors of their rounds' mean, and how many misses equal tools
# would show.
#
# Both tools start on the same footing: fio's job process calls setsid(), so it runs in a
# session (and with the kernel's autogroup scheduling, a CPU group) of its own. The agent
# is started with `setsid -w` for the same; without it, on a loaded machine its wake-ups
# waited longer and 64k psync ran ~20% slower (docs/bench-notes.md, "The agent's IO path").
set -euo pipefail
# shellcheck source=bench/host_counters.sh
source "$(dirname "$0")/host_counters.sh"

build=build
[[ $# -gt 0 && $1 != --* ]] && { build=$1; shift; }
rounds=3 runtime=5 size_mib=512 dir=/var/tmp cells='' quick=0 keep='' summarize='' aa=0
pin=()
while (($#)); do
  case $1 in
    --rounds) rounds=$2; shift 2 ;;
    --runtime) runtime=$2; shift 2 ;;
    --size) size_mib=$2; shift 2 ;;
    --dir) dir=$2; shift 2 ;;
    --cells) cells=$2; shift 2 ;;
    --quick) quick=1; shift ;;
    --cv) cells='^read-direct-psync-qd1-64k$'; rounds=5; shift ;;
    --keep) keep=$2; shift 2 ;;
    --pin) pin=(taskset -c "$2"); shift 2 ;;
    --summarize) summarize=$2; shift 2 ;;
    --aa) aa=1; shift ;;
    *) echo "agent_vs_fio: unknown option $1" >&2; exit 2 ;;
  esac
done

# The grid. psync is synchronous: depth 1 only.
block_sizes=(4k 16k 64k 256k 1m)
depths=(1 4 16 64)
engines=(psync libaio io_uring)
directions=(read write)
modes=(direct buffered)
quick_cells='^(read-direct-(psync-qd1-(4k|64k)|io_uring-qd4-16k|libaio-qd16-4k|io_uring-qd64-4k)|write-direct-psync-qd1-1m|read-buffered-psync-qd1-64k|write-buffered-io_uring-qd4-16k)$'
((quick)) && [[ -z $cells ]] && cells=$quick_cells

summary() {  # the per-cell table of a runs file; $2: the tool in the agent's place
  python3 - "$1" "${2:-agent}" <<'PY'
import collections, math, random, statistics, sys
runs = collections.defaultdict(lambda: collections.defaultdict(list))
order = []
device = collections.defaultdict(lambda: collections.defaultdict(list))
by_round = collections.defaultdict(lambda: collections.defaultdict(dict))
steal = collections.defaultdict(lambda: collections.defaultdict(dict))  # ms per s of run
for line in open(sys.argv[1]):
    cell, tool, round_, iops, ios, cpu_s, *dev = line.rstrip("\n").split("\t")
    # The tool in the agent's place (fio2 for the A/A check) is read as the agent.
    if tool == "agent" and sys.argv[2] != "agent": continue
    if tool == sys.argv[2]: tool = "agent"
    if tool not in ("agent", "fio"): continue
    if cell not in order: order.append(cell)
    by_round[cell][round_][tool] = float(iops)
    runs[cell][tool].append((float(iops), int(ios), float(cpu_s)))
    if float(iops) <= 0: continue
    runtime_ms = int(ios) / float(iops) * 1000
    # Files from before 2026-12-03 have no steal column.
    if len(dev) == 6:
        steal[cell][round_][tool] = float(dev[5]) / runtime_ms * 1000
    # Files from before 2026-12-02 have no device columns; the first ones no flush column.
    if len(dev) in (4, 5, 6):
        reqs, ms, busy_ms, queue_ms, flush_ms = (list(map(float, dev)) + [0.0])[:5]
        busy_ms -= flush_ms  # a flush runs alone: outside the job's IOs
        queue_ms -= flush_ms
        if reqs > 0 and busy_ms > 0:
            device[cell][tool].append({
                # IOs in flight, not requests: an IO split in two is one.
                "busy": busy_ms / runtime_ms, "in_flight": queue_ms / busy_ms * int(ios) / reqs,
                "ms_per_req": ms / reqs, "reqs_per_io": reqs / int(ios)})

def cv(values):
    return statistics.pstdev(values) / statistics.mean(values) if len(values) > 1 else 0.0

print(f"{'cell':36} {'agent IOPS':>10} {'fio IOPS':>10} {'ratio':>6} {'CV a/f':>11} "
      f"{'CPU us/IO a':>11} {'f':>7}")
meets = 0
ratios = {}  # cell -> agent/fio of the median IOPS, for the cells with both tools' runs
for cell in order:
    a, f = runs[cell]["agent"], runs[cell]["fio"]
    if not a or not f: continue  # a partial file: the cell's pair is not complete
    ai = statistics.median(r[0] for r in a); fi = statistics.median(r[0] for r in f)
    # CPU per IO from the run totals, so a slow round weighs by its IOs.
    acpu = sum(r[2] for r in a) / max(1, sum(r[1] for r in a)) * 1e6
    fcpu = sum(r[2] for r in f) / max(1, sum(r[1] for r in f)) * 1e6
    ratio = ratios[cell] = ai / fi if fi else float("nan")
    ok = ratio >= 0.97 and acpu <= fcpu
    meets += ok
    print(f"{cell:36} {ai:10.0f} {fi:10.0f} {ratio:6.3f} {cv([r[0] for r in a]):5.3f}/"
          f"{cv([r[0] for r in f]):5.3f} {acpu:11.1f} {fcpu:7.1f}{'' if ok else '  <'}")
print(f"\n{meets} of {len(ratios)} cells at ratio >= 0.97 with agent CPU/IO <= fio's "
      "('<' marks the others)")

# The misses, factor by factor: agent/fio of each device figure's median over rounds.
# IOPS = busy x IOs in flight / ms per request; the factor with the largest share of
# log(ratio) is the reading.
misses = [c for c, ratio in ratios.items() if ratio < 0.97]
if misses:
    print("\nIOPS misses by device factor, agent/fio (/proc/diskstats of the file's disk;"
          " req/IO: requests per IO, agent vs fio):")
    print("steal a-f: the host's steal in ms per s of run over all CPUs, median of each"
          " tool's runs")
    print(f"{'cell':36} {'ratio':>6} {'busy':>6} {'in fl.':>6} {'ms/req':>6} {'req/IO a-f':>11}"
          f" {'steal a-f':>9}  reading")
readings = collections.Counter()
def steal_of(cell):  # "agent-fio", the medians of each tool's runs; blank without the column
    rounds_ = [r for r in steal[cell].values() if "agent" in r and "fio" in r]
    if not rounds_: return ""
    return (f"{statistics.median(r['agent'] for r in rounds_):.0f}-"
            f"{statistics.median(r['fio'] for r in rounds_):.0f}")
for cell in misses:
    ratio = ratios[cell]
    a, f = device[cell]["agent"], device[cell]["fio"]
    if not a or not f:
        # Buffered writes reach the device in writeback, after the run that dirtied them.
        print(f"{cell:36} {ratio:6.3f} {'':6} {'':6} {'':6} {'':11} {steal_of(cell):>9}"
              "  (no device figures: buffered writes go out in writeback)")
        readings["no device figures"] += 1
        continue
    def med(runs_, key):
        return statistics.median(d[key] for d in runs_)
    def factor(key):
        return med(a, key) / med(f, key)
    busy, in_flight, lat = factor("busy"), factor("in_flight"), factor("ms_per_req")
    shares = {"busy": math.log(busy), "in flight": math.log(in_flight),
              "ms/req": -math.log(lat)}
    fell = min(shares, key=shares.get)
    split_ratio = med(a, "reqs_per_io") / med(f, "reqs_per_io")
    reading = {"busy": "tool: the device idle more of the run",
               "in flight": "tool: fewer IOs in flight at the device",
               "ms/req": "device: each request slower (disk speed, or the buffer's pages)"}[fell]
    # More requests per IO: the agent's buffers lay in more physical pieces than the
    # queue takes (its result's buffer_pieces says how many), and each piece-split IO
    # costs the device more.
    if fell == "ms/req" and split_ratio > 1.1:
        reading = (f"buffer pages: {split_ratio:.2f}x fio's requests per IO"
                   " (its buffers in more pieces)")
    readings[reading.split(":")[0]] += 1
    split = f"{med(a, 'reqs_per_io'):.2f}-{med(f, 'reqs_per_io'):.2f}"
    print(f"{cell:36} {ratio:6.3f} {busy:6.3f} {in_flight:6.3f} {lat:6.3f} {split:>11}"
          f" {steal_of(cell):>9}  {reading}")
if misses:
    print("\n" + ", ".join(f"{n} {what}" for what, n in readings.most_common()))

# Run-to-run noise. A round's two runs are adjacent in time, so each round gives one
# agent/fio ratio. Their spread within a cell (log scale), pooled over the cells of one
# direction and mode, is the noise one round's ratio
# carries; a cell's mean over n rounds carries it / sqrt(n). A miss is beyond noise when
# that mean stays below 0.97 by more than two standard errors.
def logs(cell, tool):
    return [math.log(r[tool]) for r in by_round[cell].values()
            if r.get("agent", 0) > 0 and r.get("fio", 0) > 0]
def pooled_sd(per_cell):
    num = sum(sum((x - statistics.mean(v)) ** 2 for x in v) for v in per_cell if len(v) > 1)
    dof = sum(len(v) - 1 for v in per_cell if len(v) > 1)
    return math.sqrt(num / dof) if dof else 0.0
def group(cell):
    return "-".join(cell.split("-")[:2])  # read-direct
shown_cells = list(ratios)
paired = {c: [a - f for a, f in zip(logs(c, "agent"), logs(c, "fio"))] for c in shown_cells}
groups = collections.defaultdict(list)
for c in shown_cells: groups[group(c)].append(c)
noise = {}  # group -> (sigma of a round's log ratio, of the agent's log IOPS, of fio's)
for g, cells_ in groups.items():
    noise[g] = (pooled_sd([paired[c] for c in cells_]),
                pooled_sd([logs(c, "agent") for c in cells_]),
                pooled_sd([logs(c, "fio") for c in cells_]))
if any(n[0] > 0 for n in noise.values()):
    print("\nRun-to-run noise, log SD pooled over each group's cells: a round's agent/fio ratio,"
          " and each tool's IOPS")
    for g, (sigma, s_agent, s_fio) in noise.items():
        print(f"  {g:16} ratio {sigma:.3f}  agent {s_agent:.3f}  fio {s_fio:.3f}"
              f"  ({len(groups[g])} cells)")
    # Equal tools, the same noise: how many cells would the median rule put below 0.97?
    # The part the two runs of a round share (the disk's drift) cancels in the ratio.
    rng = random.Random(1)
    expected = 0.0
    for g, (sigma, s_agent, s_fio) in noise.items():
        shared = math.sqrt(max(0.0, (s_agent ** 2 + s_fio ** 2 - sigma ** 2) / 2))
        own_a = math.sqrt(max(0.0, s_agent ** 2 - shared ** 2))
        own_f = math.sqrt(max(0.0, s_fio ** 2 - shared ** 2))
        trials, below = 2000, 0
        for _ in range(trials):
            c = groups[g][rng.randrange(len(groups[g]))]
            drift = [rng.gauss(0, shared) for _ in paired[c]]
            a = statistics.median(d + rng.gauss(0, own_a) for d in drift)
            f = statistics.median(d + rng.gauss(0, own_f) for d in drift)
            below += a - f < math.log(0.97)
        expected += below / trials * len(groups[g])
    print(f"Were the tools equal, noise alone would put ~{expected:.0f} of {len(shown_cells)}"
          f" cells below 0.97 by the median rule; this grid has {len(misses)}.")
# Steal against the ratio: each round's log agent/fio against the agent's run's steal
# minus fio's. Where the host takes more from one tool's run, that run is slower. A steal
# entry exists only for a run with IOPS above 0.
pairs = [(r["agent"] - r["fio"], math.log(by_round[c][k]["agent"] / by_round[c][k]["fio"]))
         for c in shown_cells for k, r in steal[c].items() if "agent" in r and "fio" in r]
if len(pairs) >= 10:
    all_steal = [s_ for c in shown_cells for r in steal[c].values() for s_ in r.values()]
    r_ = statistics.correlation([p[0] for p in pairs], [p[1] for p in pairs])
    print(f"\nHost steal: median {statistics.median(all_steal):.0f} ms per s of run (all CPUs),"
          f" max {max(all_steal):.0f}; a round's log agent/fio against the agent's run's steal"
          f" minus fio's: r = {r_:.2f} over {len(pairs)} rounds")
    margin = 20  # ms per s: 1% of this machine's two CPUs
    for what, sel in (("the agent's run had more", lambda d: d > margin),
                      ("fio's run had more", lambda d: d < -margin),
                      (f"within {margin} ms/s", lambda d: -margin <= d <= margin)):
        chosen = [math.exp(p[1]) for p in pairs if sel(p[0])]
        if chosen:
            below = sum(x < 0.97 for x in chosen)
            print(f"  {what:26} {len(chosen):4} rounds, median ratio "
                  f"{statistics.median(chosen):.3f}, {below} below 0.97")

if misses and any(n[0] > 0 for n in noise.values()):
    print(f"\n{'miss':36} {'ratio':>6} {'mean of rounds':>14} {'+2 SE':>6}  verdict")
    beyond = 0
    for cell in misses:
        v = paired[cell]
        if not v: continue
        mean = statistics.mean(v)
        upper = mean + 2 * noise[group(cell)][0] / math.sqrt(len(v))
        is_beyond = upper < math.log(0.97)
        beyond += is_beyond
        print(f"{cell:36} {ratios[cell]:6.3f} {math.exp(mean):14.3f} {math.exp(upper):6.3f}  "
              f"{'beyond noise: the agent slower' if is_beyond else 'within noise'}")
    # One-sided, two SE: ~1 in 40 cells of a tool exactly at the bar flags by chance.
    print(f"\n{beyond} of {len(misses)} misses beyond noise (by chance ~1 in 40 cells at"
          " the bar: retest them with more rounds, --cells)")
PY
}
aa_summary() {  # fio against itself, from a runs file with fio2 rows
  echo
  echo "A/A: fio's second run (fio2) in the agent's place, same rounds (read 'agent' as fio2)"
  echo
  summary "$1" fio2
}
if [[ -n $summarize ]]; then
  summary "$summarize"
  grep -q "	fio2	" "$summarize" && aa_summary "$summarize"
  exit
fi

agent=$build/guest-agent/storbed-agent
command -v fio >/dev/null || { echo "agent_vs_fio: fio is not installed (apt-get install fio)" >&2; exit 1; }
[[ -x /usr/bin/time ]] || { echo "agent_vs_fio: /usr/bin/time is not installed (apt-get install time)" >&2; exit 1; }
[[ -x $agent ]] || { echo "agent_vs_fio: no agent at $agent (build first)" >&2; exit 1; }

bytes_of() {  # 4k -> 4096, 1m -> 1048576
  local n=${1%[km]}
  case $1 in *k) echo $((n << 10)) ;; *m) echo $((n << 20)) ;; *) echo "$1" ;; esac
}

grid=()
for rw in "${directions[@]}"; do
  for mode in "${modes[@]}"; do
    for engine in "${engines[@]}"; do
      for qd in "${depths[@]}"; do
        [[ $engine == psync && $qd != 1 ]] && continue
        for bs in "${block_sizes[@]}"; do
          name=$rw-$mode-$engine-qd$qd-$bs
          [[ -n $cells && ! $name =~ $cells ]] && continue
          grid+=("$name $rw $mode $engine $qd $bs")
        done
      done
    done
  done
done
((${#grid[@]})) || { echo "agent_vs_fio: no cell matches '$cells'" >&2; exit 2; }

work=$(mktemp -d "$dir/storbed-bench-XXXXXX")
trap 'rm -rf "$work"' EXIT
file=$work/data.raw
# Real data: reads of holes never reach the device.
dd if=/dev/urandom of="$file" bs=1M count="$size_mib" status=none conv=fsync
runs=$work/runs.tsv
: >"$runs"
# The file's disk, for its diskstats; none on tmpfs (--dir /dev/shm), where both tools'
# IO is the kernel's memory copy.
dev=$(disk_of "$file")
# For one direction: requests completed, ms spent in them, ms busy, weighted ms in queue,
# ms flushing (0 on kernels before 5.5, which do not count flushes).
device_counters() {
  [[ -n $dev ]] || { echo 0 0 0 0 0; return; }
  awk -v d="$dev" -v rw="$1" '$3 == d {
    if (rw == "read") print $4, $7, $13, $14, $20 + 0
    else print $8, $11, $13, $14, $20 + 0 }' /proc/diskstats
}

# Buffered writes run one pass over the file (io_size, runtime only a cap) for both tools,
# from a clean page cache. With --time_based, fio's invalidate=1 fadvises DONTNEED before
# each later pass, which starts writeback of the pass just written while the next one
# writes; the agent's per-pass drop waits for that writeback (fsync) instead. Neither is
# the other's, and one pass has no later pass. The previous run's dirty pages are written
# back (sync FILE: fsync) before each run, outside its time, so neither tool meets the
# other's writeback.
one_pass_cell() { [[ $1 == write && $2 == buffered ]]; }

# One run of the agent: prints "iops ios".
run_agent() {
  local rw=$1 mode=$2 engine=$3 qd=$4 bs=$5 seed=$6
  local direct=true passes=''
  [[ $mode == buffered ]] && direct=false
  # fio's --invalidate=1 with --time_based drops the file's pages before every pass over
  # it, inside the runtime: a buffered read job reads the device on every pass. The agent
  # does the same with invalidate_each_pass counted in runtime. Buffered writes: one pass
  # each (see one_pass_cell).
  [[ $mode == buffered && $rw == read ]] &&
    passes=', "invalidate_each_pass": true, "invalidate_in_runtime": true'
  one_pass_cell "$rw" "$mode" && passes=", \"io_size\": $((size_mib << 20))"
  # fadvise random: fio's default fadvise_hint does the same for a random job, which
  # turns buffered readahead off.
  cat >"$work/job.json" <<JOB
{"name": "bench", "target": "$file", "pattern": "random", "rw": "$rw", "ioengine": "$engine",
 "bs": $(bytes_of "$bs"), "iodepth": $qd, "runtime": $runtime, "direct": $direct, "seed": $seed,
 "cache": "cold", "fadvise_hint": "random"$passes}
JOB
  setsid -w "${pin[@]}" /usr/bin/time -f '%U %S' -o "$work/rusage" "$agent" --standalone "$work/job.json" \
    >"$work/out.json"
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["iops"], d["ios"])' \
    "$work/out.json"
}

run_fio2() { run_fio "$@"; }

run_fio() {
  local rw=$1 mode=$2 engine=$3 qd=$4 bs=$5 seed=$6
  local direct=1 time_based=--time_based
  [[ $mode == buffered ]] && direct=0
  one_pass_cell "$rw" "$mode" && time_based=--io_size="${size_mib}m"
  "${pin[@]}" /usr/bin/time -f '%U %S' -o "$work/rusage" \
    fio --name=bench --filename="$file" --rw="rand$rw" --bs="$bs" --ioengine="$engine" \
      --iodepth="$qd" --direct="$direct" --invalidate=1 --runtime="$runtime" "$time_based" \
      --randseed="$seed" --output-format=json >"$work/out.json"
  python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))["jobs"][0][sys.argv[2]]
print(d["iops"], d["total_ios"])' "$work/out.json" "$rw"
}

echo "# agent vs fio: ${#grid[@]} cells, $rounds rounds, ${runtime}s per run, random IO, ${size_mib} MiB file on $(df --output=source "$dir" | tail -1)"
echo "# storbed $(git -C "$(dirname "$0")/.." rev-parse --short HEAD 2>/dev/null), $(fio --version), kernel $(uname -r), $(nproc) CPUs"
echo "# load at start:$(uptime | sed 's/.*load average://')"
((${#pin[@]})) && echo "# both tools pinned: ${pin[*]}"
tools=(agent fio)
((aa)) && tools+=(fio2)
for ((round = 1; round <= rounds; round++)); do
  for ((i = 0; i < ${#grid[@]}; i++)); do
    read -r name rw mode engine qd bs <<<"${grid[i]}"
    # The tools in turn: each round and each cell starts one further along.
    k=$(((round + i + 1) % ${#tools[@]}))
    order=("${tools[@]:k}" "${tools[@]:0:k}")
    # Buffered writes: the first run of a pair ran slower than the second, whichever tool
    # (second/first 1.61 in the median of the grid's 135 pairs at 027c3ad, the second
    # faster in 98; 0.996-1.003 in the other modes), so with an odd number of rounds a
    # cell's median was the order's. An unrecorded run first puts both behind the same.
    if one_pass_cell "$rw" "$mode"; then
      sync "$file"
      "run_${order[0]}" "$rw" "$mode" "$engine" "$qd" "$bs" "$round" >/dev/null
    fi
    for tool in "${order[@]}"; do
      # Every run starts with nothing of the file left to write back, outside its window:
      # after O_DIRECT writes the inode's times are dirty, and the agent's cold-cache
      # fsync wrote that out inside its window (3-26 writes taking ~226 ms here, +12% on
      # its time per request) while fio met the journal commit whenever it came. This also
      # writes back a buffered write cell's pages before the next run, whichever cell that
      # is: the first cell of a round otherwise read while ~512 MiB went out.
      sync "$file"
      read -r q0 ms0 busy0 queue0 flush0 < <(device_counters "$rw")
      steal0=$(steal_ms)
      result=$("run_$tool" "$rw" "$mode" "$engine" "$qd" "$bs" "$round")
      steal1=$(steal_ms)
      read -r q1 ms1 busy1 queue1 flush1 < <(device_counters "$rw")
      read -r user sys <"$work/rusage"
      # Buffered writes reach the device after the run (writeback): no device figures.
      device='0\t0\t0\t0\t0'
      one_pass_cell "$rw" "$mode" ||
        device="$((q1 - q0))\t$((ms1 - ms0))\t$((busy1 - busy0))\t$((queue1 - queue0))\t$((flush1 - flush0))"
      printf "%s\t%s\t%s\t%s\t%s\t$device\t%s\n" "$name" "$tool" "$round" "${result// /$'\t'}" \
        "$(python3 -c "print($user + $sys)")" "$((steal1 - steal0))" >>"$runs"
    done
    line=$(printf 'round %d  %-36s' "$round" "$name")
    for tool in "${tools[@]}"; do
      line+=$(printf '  %s %8.0f IOPS' "$tool" \
        "$(awk -F'\t' -v c="$name" -v t="$tool" -v r="$round" '$1==c && $2==t && $3==r {print $4}' "$runs")")
    done
    echo "$line"
  done
done
echo "# load at end:$(uptime | sed 's/.*load average://')"
[[ -n $keep ]] && cp "$runs" "$keep"

echo
summary "$runs"
if ((aa)); then aa_summary "$runs"; fi
