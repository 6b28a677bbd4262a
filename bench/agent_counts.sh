#!/usr/bin/env bash
# Benchmark: what storbed-agent and fio each do per IO in the same O_DIRECT write job, in
# counts rather than seconds (a noisy, shared VM does not keep timings, counts it does).
# O_DIRECT writes run 2-4% below fio in the agent-vs-fio grids (docs/bench-notes.md,
# "What steal does not explain"); this asks whether the agent does more work per IO.
#
#   bench/agent_counts.sh BUILD_DIR [OUT_DIR]      (root; OUT_DIR default
#                                                  /var/tmp/storbed-agent-counts)
#
# Cells (random O_DIRECT writes, a fixed number of IOs through io_size; the job is
# bench/agent_vs_fio.sh's, with io_size in place of runtime), on a 256 MiB file of
# /dev/urandom data that the script writes under OUT_DIR (a real disk: tmpfs refused):
#   write-direct-libaio-qd1-64k     64 MiB (1024 IOs),  callgrind 16 MiB (256 IOs)
#   write-direct-libaio-qd16-4k     16 MiB (4096 IOs),  callgrind  4 MiB (1024 IOs)
#   write-direct-io_uring-qd16-4k   16 MiB (4096 IOs),  callgrind  4 MiB (1024 IOs)
# Each cell also runs at 16 blocks ("small"): the start-up and tear-down a process pays
# whatever its IOs. "per IO" is a whole run's count / its IOs; "marginal" is
# (big - small) / (IOs big - IOs small), the part that grows with the IOs.
#
# 1. syscalls: `strace -f -c` (every thread and child, fio's forked job process too), REPS
#    runs (default 3), the median. strace stops the tracee at every syscall, which slows
#    it and changes how many completions each reap finds; so the same runs again under
#    `perf stat` on the syscall tracepoints (counted in the kernel, not stopped), and the
#    agent's own avg_submit_batch / avg_complete_batch of every run.
# 2. instructions: `valgrind --tool=callgrind --trace-children=yes`, one run per size.
#    fio's forked job process writes its own file, which holds the parent's pre-fork
#    start-up too (callgrind's counts are copied at fork): the marginal cancels it. The
#    agent's top 10 functions by inclusive Ir (callgrind_annotate), the top functions by
#    marginal inclusive Ir per IO for both tools, and calls per IO to the allocator and
#    the clock (vDSO calls are ordinary calls: no syscall, still instructions).
#
# Raw files stay in OUT_DIR (strace/, perf/, cg/, json/, runs.tsv); the data file is removed at
# the end. One process runs at a time.
# Takes ~2-4 minutes here. Not a test: counts depend on the kernel, fio and the machine.
set -euo pipefail

usage() { echo "usage: bench/agent_counts.sh BUILD_DIR [OUT_DIR]" >&2; exit 2; }
(($# >= 1 && $# <= 2)) || usage
[[ $1 == -* ]] && usage
build=$1
out=${2:-/var/tmp/storbed-agent-counts}
reps=${REPS:-3}
agent=$build/guest-agent/storbed-agent

fail() { echo "agent_counts: $*" >&2; exit 1; }
((EUID == 0)) || fail "needs root (strace, perf tracepoints, O_DIRECT file, pagemap)"
[[ -x $agent ]] || fail "no agent at $agent (build first)"
for tool in fio strace valgrind callgrind_annotate python3; do
  command -v "$tool" >/dev/null || fail "$tool is not installed (apt-get install ${tool/callgrind_annotate/valgrind})"
done
agent=$(realpath "$agent")
mkdir -p "$out"
out=$(realpath "$out")
fstype=$(df --output=fstype "$out" | tail -1 | tr -d ' ')
case $fstype in tmpfs | ramfs | overlay) fail "$out is on $fstype: give an OUT_DIR on a real disk" ;; esac
rm -rf "$out/strace" "$out/perf" "$out/cg" "$out/json"
mkdir -p "$out/strace" "$out/perf" "$out/cg" "$out/json"
file=$out/data.raw
runs=$out/runs.tsv
: >"$runs"

# perf stat on syscall tracepoints, when perf and tracefs have them.
tracefs=''
for d in /sys/kernel/tracing /sys/kernel/debug/tracing; do
  [[ -d $d/events/syscalls ]] && { tracefs=$d; break; }
done
perf_events=''
if command -v perf >/dev/null && [[ -n $tracefs ]]; then
  perf_events=raw_syscalls:sys_enter
  for s in io_submit io_getevents io_pgetevents io_uring_enter clock_gettime gettimeofday \
    futex pread64 read write openat close clock_nanosleep nanosleep pselect6 ppoll poll \
    wait4 sched_yield madvise mmap munmap newfstatat fsync fdatasync fadvise64 getrusage \
    timerfd_settime; do
    [[ -d $tracefs/events/syscalls/sys_enter_$s ]] && perf_events+=,syscalls:sys_enter_$s
  done
fi

# name engine depth bs bytes big-io_size callgrind-io_size
cells=(
  "write-direct-libaio-qd1-64k libaio 1 64k 65536 64m 16m"
  "write-direct-libaio-qd16-4k libaio 16 4k 4096 16m 4m"
  "write-direct-io_uring-qd16-4k io_uring 16 4k 4096 16m 4m"
)
small_blocks=16

bytes_of() {  # 16m -> 16777216
  local n=${1%[km]}
  case $1 in *k) echo $((n << 10)) ;; *m) echo $((n << 20)) ;; *) echo "$1" ;; esac
}

# The command of one run in `cmd`: the agent's job is agent_vs_fio.sh's (cold cache,
# fadvise random, seed 1) with io_size instead of runtime; fio's likewise (invalidate=1).
# The agent runs without agent_vs_fio's `setsid -w`: it changes the scheduling group, not
# what the process does, and would add its own exec to the counts.
set_cmd() {  # tool engine depth bs io_size tag
  local tool=$1 engine=$2 depth=$3 bs=$4 io_size=$5 tag=$6
  if [[ $tool == agent ]]; then
    cat >"$out/json/$tag.job.json" <<JOB
{"name": "counts", "target": "$file", "pattern": "random", "rw": "write", "ioengine": "$engine",
 "bs": $(bytes_of "$bs"), "iodepth": $depth, "io_size": $(bytes_of "$io_size"), "direct": true,
 "seed": 1, "cache": "cold", "fadvise_hint": "random"}
JOB
    cmd=("$agent" --standalone "$out/json/$tag.job.json")
  else
    cmd=(fio --name=bench --filename="$file" --rw=randwrite --bs="$bs" --ioengine="$engine"
      --iodepth="$depth" --direct=1 --invalidate=1 --io_size="$io_size" --randseed=1
      --output-format=json)
  fi
}

# "ios submit_batch complete_batch" of a run's output (fio: "ios - -").
result_of() {  # tool json
  python3 - "$1" "$2" <<'PY'
import json, sys
tool, path = sys.argv[1:]
d = json.load(open(path))
if tool == "agent":
    print(d["ios"], f'{d["avg_submit_batch"]:.2f}', f'{d["avg_complete_batch"]:.2f}')
else:
    print(d["jobs"][0]["write"]["total_ios"], "-", "-")
PY
}

record() {  # cell tool method size rep tag json
  local r
  r=$(result_of "$2" "$7")
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$5" "$6" "${r// /$'\t'}" >>"$runs"
}

echo "# agent_counts: storbed $(git -C "$(dirname "$0")/.." rev-parse --short HEAD 2>/dev/null || echo '?')," \
  "$(fio --version), $(strace -V | head -1), $(valgrind --version), kernel $(uname -r), $(nproc) CPUs"
echo "# clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null)," \
  "load at start:$(uptime | sed 's/.*load average://')"
echo "# file: $file (256 MiB of /dev/urandom) on $(df --output=source "$out" | tail -1) ($fstype)"
# Real data written through to the disk before any run; the file goes when the script
# ends (the counts and tables do not need it).
trap 'rm -f "$file"' EXIT
dd if=/dev/urandom of="$file" bs=1M count=256 status=none conv=fsync

# 1. strace and perf stat, REPS rounds, the tools alternating first.
for spec in "${cells[@]}"; do
  read -r cell engine depth bs bytes big _ <<<"$spec"
  small=$((small_blocks * bytes))
  for ((rep = 1; rep <= reps; rep++)); do
    tools=(agent fio)
    ((rep % 2)) || tools=(fio agent)
    for size in big small; do
      io_size=$big
      [[ $size == small ]] && io_size=$small
      for tool in "${tools[@]}"; do
        tag=$cell.$tool.$size.$rep
        set_cmd "$tool" "$engine" "$depth" "$bs" "$io_size" "$tag"
        strace -f -c -o "$out/strace/$tag.txt" "${cmd[@]}" >"$out/json/$tag.strace.json"
        record "$cell" "$tool" strace "$size" "$rep" "$tag" "$out/json/$tag.strace.json"
        if [[ -n $perf_events ]]; then
          perf stat -x, -o "$out/perf/$tag.txt" -e "$perf_events" "${cmd[@]}" \
            >"$out/json/$tag.perf.json"
          record "$cell" "$tool" perf "$size" "$rep" "$tag" "$out/json/$tag.perf.json"
        fi
        "${cmd[@]}" >"$out/json/$tag.bare.json"
        record "$cell" "$tool" bare "$size" "$rep" "$tag" "$out/json/$tag.bare.json"
      done
    done
  done
  echo "# $cell: strace$([[ -n $perf_events ]] && echo ', perf stat') and bare runs done"
done

# 2. callgrind, one run per tool and size. The pid valgrind starts is the process's own
# (valgrind execs the tool into it): that file is fio's parent, any other its job process.
for spec in "${cells[@]}"; do
  read -r cell engine depth bs bytes _ cg_size <<<"$spec"
  small=$((small_blocks * bytes))
  for tool in agent fio; do
    for size in big small; do
      io_size=$cg_size
      [[ $size == small ]] && io_size=$small
      tag=$cell.$tool.$size
      dir=$out/cg/$tag
      mkdir -p "$dir"
      set_cmd "$tool" "$engine" "$depth" "$bs" "$io_size" "$tag.cg"
      valgrind --tool=callgrind --trace-children=yes --callgrind-out-file="$dir/callgrind.out.%p" \
        --log-file="$dir/valgrind.log.%p" "${cmd[@]}" >"$out/json/$tag.cg.json" &
      pid=$!
      wait "$pid" || fail "callgrind run $tag failed (see $dir)"
      echo "$pid" >"$dir/parent"
      record "$cell" "$tool" callgrind "$size" 1 "$tag" "$out/json/$tag.cg.json"
      for f in "$dir"/callgrind.out.*; do
        callgrind_annotate --inclusive=yes --threshold=100 "$f" >"$f.inclusive" 2>/dev/null
      done
    done
  done
  echo "# $cell: callgrind done"
done
echo "# load at end:$(uptime | sed 's/.*load average://')"
echo

# 3. The tables.
python3 - "$out" "$reps" <<'PY'
import collections, glob, os, re, statistics, sys

out, reps = sys.argv[1], int(sys.argv[2])
runs = {}  # (cell, tool, method, size, rep) -> (tag, ios, submit_batch, complete_batch)
cells = []
for line in open(f"{out}/runs.tsv"):
    cell, tool, method, size, rep, tag, ios, sb, cb = line.rstrip("\n").split("\t")
    if cell not in cells: cells.append(cell)
    runs[cell, tool, method, size, int(rep)] = (tag, int(ios), sb, cb)
TOOLS = ("agent", "fio")

def strace_counts(path):
    counts = {}
    for line in open(path):
        f = line.split()
        # % time, seconds, usecs/call, calls, [errors], syscall
        if len(f) in (5, 6) and f[0][0].isdigit() and f[-1] != "total":
            counts[f[-1]] = int(f[3])
    return counts

def perf_counts(path):
    counts = {}
    for line in open(path):
        f = line.split(",")
        if len(f) > 2 and f[2].startswith(("syscalls:sys_enter_", "raw_syscalls:")):
            name = f[2].replace("syscalls:sys_enter_", "").replace("raw_syscalls:sys_enter", "ALL")
            counts[name] = int(f[0]) if f[0].isdigit() else 0
    return counts

def per_io(cell, tool, method, reader, folder):
    """syscall -> (median per IO of the big runs, median marginal per IO)"""
    whole, marginal = collections.defaultdict(list), collections.defaultdict(list)
    for rep in range(1, reps + 1):
        big, small = runs.get((cell, tool, method, "big", rep)), runs.get((cell, tool, method, "small", rep))
        if not big or not small: continue
        cb, cs = reader(f"{out}/{folder}/{big[0]}.txt"), reader(f"{out}/{folder}/{small[0]}.txt")
        for name in set(cb) | set(cs):
            whole[name].append(cb.get(name, 0) / big[1])
            marginal[name].append((cb.get(name, 0) - cs.get(name, 0)) / (big[1] - small[1]))
    return {n: (statistics.median(whole[n]), statistics.median(marginal[n])) for n in whole}

def batches(cell, method):
    vals = [(r[2], r[3]) for k, r in runs.items()
            if k[0] == cell and k[1] == "agent" and k[2] == method and k[3] == "big"]
    if not vals: return "-"
    return "submit " + "/".join(v[0] for v in vals) + ", complete " + "/".join(v[1] for v in vals)

print("=" * 100)
print(f"1. SYSCALLS PER IO (strace -f -c; median of {reps} runs; marg = (big-small)/(IOs big-small))")
print("=" * 100)
for cell in cells:
    ios = {t: runs[cell, t, "strace", "big", 1][1] for t in TOOLS}
    s = {t: per_io(cell, t, "strace", strace_counts, "strace") for t in TOOLS}
    names = sorted(set(s["agent"]) | set(s["fio"]),
                   key=lambda n: -max(s["agent"].get(n, (0, 0))[0], s["fio"].get(n, (0, 0))[0]))
    print(f"\n{cell}  (IOs: agent {ios['agent']}, fio {ios['fio']})")
    print(f"  {'syscall':18} {'agent/IO':>9} {'marg':>8}   {'fio/IO':>9} {'marg':>8}")
    tot = {t: [0.0, 0.0] for t in TOOLS}
    for n in names:
        for t in TOOLS:
            w, m = s[t].get(n, (0.0, 0.0)); tot[t][0] += w; tot[t][1] += m
    for n in names[:14]:
        a, f = s["agent"].get(n, (0.0, 0.0)), s["fio"].get(n, (0.0, 0.0))
        print(f"  {n:18} {a[0]:9.3f} {a[1]:8.3f}   {f[0]:9.3f} {f[1]:8.3f}")
    print(f"  {'(all syscalls)':18} {tot['agent'][0]:9.3f} {tot['agent'][1]:8.3f}   "
          f"{tot['fio'][0]:9.3f} {tot['fio'][1]:8.3f}")
    print(f"  agent's own batch sizes under strace (per run): {batches(cell, 'strace')}")

if any(k[2] == "perf" for k in runs):
    print()
    print("=" * 100)
    print(f"1b. THE SAME UNDER perf stat (syscall tracepoints: counted, tracee not stopped), median of {reps}")
    print("=" * 100)
    for cell in cells:
        p = {t: per_io(cell, t, "perf", perf_counts, "perf") for t in TOOLS}
        names = [n for n in sorted(set(p["agent"]) | set(p["fio"]),
                                   key=lambda n: -max(p["agent"].get(n, (0, 0))[0], p["fio"].get(n, (0, 0))[0]))
                 if max(p["agent"].get(n, (0, 0))[0], p["fio"].get(n, (0, 0))[0]) >= 0.001]
        print(f"\n{cell}")
        print(f"  {'syscall':18} {'agent/IO':>9} {'marg':>8}   {'fio/IO':>9} {'marg':>8}")
        for n in names:
            a, f = p["agent"].get(n, (0.0, 0.0)), p["fio"].get(n, (0.0, 0.0))
            print(f"  {n if n != 'ALL' else '(all syscalls)':18} {a[0]:9.3f} {a[1]:8.3f}   {f[0]:9.3f} {f[1]:8.3f}")
        print(f"  agent's own batch sizes under perf: {batches(cell, 'perf')}")
        print(f"  agent's own batch sizes, bare runs: {batches(cell, 'bare')}")

# --- callgrind ---
LINE = re.compile(r"^\s*([\d,]+)\s+\(\s*[\d.]+%\)\s+(.*\S)\s*$")
def inclusive(path):
    """function -> inclusive Ir, from callgrind_annotate --inclusive=yes --threshold=100"""
    fns, started = {}, False
    for line in open(path + ".inclusive"):
        m = LINE.match(line)
        if not m: continue
        ir, name = int(m.group(1).replace(",", "")), m.group(2)
        if name == "PROGRAM TOTALS": started = True; continue
        if started: fns[name] = fns.get(name, 0) + ir
    return fns

def totals(path):
    for line in open(path):
        if line.startswith(("summary:", "totals:")): return int(line.split()[1])
    return 0

ALLOC = re.compile(r"^(malloc|calloc|realloc|posix_memalign|aligned_alloc|memalign)$")
FREE = re.compile(r"^(free|cfree)$")
def calls(path):
    """(calls by callee, calls by (caller, callee)) from the callgrind file's calls= lines"""
    names, by_callee, by_pair = {}, collections.Counter(), collections.Counter()
    caller = callee = None
    name_re = re.compile(r"^(c?fn)=\((\d+)\)(?: (.*))?$")
    for line in open(path, errors="replace"):
        m = name_re.match(line.rstrip("\n"))
        if m:
            if m.group(3) is not None: names[m.group(2)] = m.group(3)
            if m.group(1) == "fn": caller, callee = names.get(m.group(2)), None
            else: callee = names.get(m.group(2))
            continue
        if line.startswith("calls=") and callee is not None:
            n = int(line[6:].split()[0])
            by_callee[callee] += n
            by_pair[caller, callee] += n
            callee = None
    return by_callee, by_pair

def count(counter, rx):
    return sum(n for k, n in counter.items() if rx.match(k if isinstance(k, str) else k[1]))

def cg_run(cell, tool, size):
    d = f"{out}/cg/{cell}.{tool}.{size}"
    parent = open(f"{d}/parent").read().strip()
    files = sorted(glob.glob(f"{d}/callgrind.out.*"))
    files = [f for f in files if not f.endswith(".inclusive")]
    main = [f for f in files if f.endswith("." + parent)]
    kids = [f for f in files if not f.endswith("." + parent)]
    return runs[cell, tool, "callgrind", size, 1][1], main, kids

def short(name, width=96):
    name = re.sub(r"^\?\?\?:", "", name)
    name = re.sub(r" \[/work/main/build/guest-agent/storbed-agent\]$", "", name)
    name = re.sub(r"std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >", "std::string", name)
    return name if len(name) <= width else name[:width - 3] + "..."

print()
print("=" * 100)
print("2. INSTRUCTIONS PER IO (callgrind Ir; marg = (big-small)/(IOs big-small))")
print("=" * 100)
print("   all: every file of the run (fio: its main process and its forked job process, whose file")
print("   also holds the start-up before the fork). IO loop: the marginal inclusive Ir of the agent's")
print("   RunAsyncEngine (engine_async.cc) and of fio's fio_backend in the job process (its IO loop;")
print("   fio's start-up clock calibration, fio_clock_init, is time-based and lies outside it).")
print("   allocs/frees: calls to malloc/calloc/realloc/memalign and free; time reads: calls to")
print("   clock_gettime (agent; the vDSO, no syscall) and to fio_gettime (fio), per IO, marginal.")
print(f"\n  {'cell':30} {'tool':5} {'IOs':>5} {'total Ir':>12} {'Ir/IO':>8} {'marg Ir/IO':>10}"
      f" {'IO loop':>8} {'allocs':>7} {'frees':>6} {'t.reads':>7}")
marg_fns, marg_calls, marg_pairs = {}, {}, {}
for cell in cells:
    for tool in TOOLS:
        ib, mb, kb = cg_run(cell, tool, "big")
        is_, ms, ks = cg_run(cell, tool, "small")
        d_io = ib - is_
        tb, ts = sum(map(totals, mb + kb)), sum(map(totals, ms + ks))
        cb, cs = collections.Counter(), collections.Counter()
        pb, ps = collections.Counter(), collections.Counter()
        for f in mb + kb:
            a, b = calls(f); cb.update(a); pb.update(b)
        for f in ms + ks:
            a, b = calls(f); cs.update(a); ps.update(b)
        # the IO process's functions: the agent's one file, fio's job process
        fb, fs = (mb, ms) if tool == "agent" else (kb, ks)
        incb, incs = inclusive(fb[0]), inclusive(fs[0])
        fns = {n: (incb.get(n, 0) - incs.get(n, 0)) / d_io for n in incb}
        marg_fns[cell, tool] = fns
        cb1, cs1 = calls(fb[0])[0], calls(fs[0])[0]
        marg_calls[cell, tool] = {n: (cb1.get(n, 0) - cs1.get(n, 0)) / d_io for n in cb1}
        marg_pairs[cell, tool] = {k: (pb.get(k, 0) - ps.get(k, 0)) / d_io for k in pb}
        loop_rx = re.compile(r"RunAsyncEngine\(" if tool == "agent" else r"^\?\?\?:fio_backend ")
        loop = max((v for n, v in fns.items() if loop_rx.search(n)), default=float("nan"))
        clock_rx = re.compile(r"^(__)?clock_gettime(@.*)?$" if tool == "agent" else r"^fio_gettime$")
        m = lambda rx: (count(cb, rx) - count(cs, rx)) / d_io
        print(f"  {cell:30} {tool:5} {ib:5d} {tb:12,d} {tb / ib:8.0f} {(tb - ts) / d_io:10.0f}"
              f" {loop:8.0f} {m(ALLOC):7.2f} {m(FREE):6.2f} {m(clock_rx):7.2f}")

print()
print("=" * 100)
print("2b. AGENT: TOP 10 FUNCTIONS BY INCLUSIVE Ir (callgrind_annotate --inclusive=yes, the big run)")
print("=" * 100)
for cell in cells:
    ib, mb, _ = cg_run(cell, "agent", "big")
    print(f"\n{cell}  ({ib} IOs, {totals(mb[0]):,d} Ir)")
    fns = sorted(((ir, n) for n, ir in inclusive(mb[0]).items()), reverse=True)[:10]
    for ir, n in fns:
        print(f"  {ir:12,d} {ir / ib:9.0f}/IO  {short(n)}")

# The per-IO path by function: marginal inclusive Ir per IO and calls per IO.
PICK = {
    "agent": [r"RunAsyncEngine\(", r"StampWrite\(", r"::Fill\(", r"Backend::Submit\(",
              r"Backend::ReapFirst\(", r"Backend::ReapMore\(", r"Backend::Prep\(",
              r"CountCompletion\(", r"Histogram::Record\(", r"InFlightIntegral::Set\(",
              r"MonotonicNs\(", r"^\?\?\?:clock_gettime ", r"Random::Next\(", r"IoBudget::MayIssue\(",
              r"^\?\?\?:io_submit ", r"^\?\?\?:io_getevents", r"io_uring_submit_and_wait",
              r"__io_uring_get_cqe", r"GuestSampler::Loop\(", r"^\?\?\?:malloc "],
    "fio": [r"^\?\?\?:fio_backend ", r"^\?\?\?:get_io_u ", r"^\?\?\?:td_io_queue ",
            r"^\?\?\?:td_io_commit ", r"^\?\?\?:io_u_queued_complete ", r"^\?\?\?:td_io_getevents ",
            r"^\?\?\?:add_(clat|lat|slat)_sample ", r"^\?\?\?:fio_gettime ",
            r"^\?\?\?:io_submit ", r"^\?\?\?:io_getevents ", r"fio_ioring_", r"fio_libaio_",
            r"^\?\?\?:malloc|malloc\.c:malloc "],
}
print()
print("=" * 100)
print("2c. THE PER-IO PATH BY FUNCTION: marginal inclusive Ir per IO, calls per IO (the IO process)")
print("=" * 100)
for cell in cells:
    for tool in TOOLS:
        fns, cl = marg_fns[cell, tool], marg_calls[cell, tool]
        print(f"\n{cell} {tool}")
        shown = set()
        for rx in PICK[tool]:
            r = re.compile(rx)
            for n, v in sorted(fns.items(), key=lambda kv: -kv[1]):
                if n in shown or not r.search(n) or abs(v) < 0.5: continue
                shown.add(n)
                bare = re.sub(r"^[^:]*:", "", n, count=1) if n.startswith(("???", ".")) else n
                bare = re.sub(r" \[[^\]]*\]$", "", bare)
                c = cl.get(bare)
                print(f"  {v:8.0f} Ir/IO {'' if c is None else f'{c:6.2f} calls/IO':>16}  {short(n, 100)}")

print()
print("=" * 100)
print("2d. TOP FUNCTIONS BY MARGINAL INCLUSIVE Ir PER IO (the IO process, top 12)")
print("=" * 100)
for cell in cells:
    for tool in TOOLS:
        print(f"\n{cell} {tool}")
        for n, v in sorted(marg_fns[cell, tool].items(), key=lambda kv: -kv[1])[:12]:
            print(f"  {v:9.0f}/IO  {short(n, 110)}")

print()
print("=" * 100)
print("2e. AGENT: ALLOCATIONS PER IO BY CALLER (marginal; the result's JSON grows with the run's samples)")
print("=" * 100)
for cell in cells:
    # The first caller outside the allocator: operator new's callers, and malloc's others.
    NEW = re.compile(r"^operator new")
    rows = sorted(((v, k[0]) for k, v in marg_pairs[cell, "agent"].items()
                   if (ALLOC.match(k[1] or "") or NEW.match(k[1] or ""))
                   and not (NEW.match(k[0] or "") or ALLOC.match(k[0] or "")) and abs(v) > 0.005),
                  reverse=True)[:6]
    print(f"\n{cell}")
    for v, caller in rows:
        print(f"  {v:6.3f}/IO  {short(caller or '?', 110)}")
PY
