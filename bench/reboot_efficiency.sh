#!/usr/bin/env bash
# Benchmark: what reboot per_machine saves and whether it moves the figures (issue 34). Runs
# one interleaved scenario twice, reboot per_round then per_machine (the file's own repeats
# unless --repeats), and prints for each: wall time, IO-phase time and efficiency (the
# manifest's), guest boots, and per cell the median IOPS, the runs' CV and the drift (least
# squares slope of log IOPS over the rounds, % per round).
#
#   bench/reboot_efficiency.sh BUILD_DIR SCENARIO [OUT_DIR] [--repeats N]
set -euo pipefail

build=${1:?usage: reboot_efficiency.sh BUILD_DIR SCENARIO [OUT_DIR] [--repeats N]}; shift
scenario=${1:?usage: reboot_efficiency.sh BUILD_DIR SCENARIO [OUT_DIR] [--repeats N]}; shift
out=/var/tmp/storbed-reboot-efficiency
if (($#)) && [[ $1 != --* ]]; then out=$1; shift; fi
repeats=""
while (($#)); do
  case $1 in
    --repeats) repeats=$2; shift 2 ;;
    *) echo "reboot_efficiency: unknown option $1" >&2; exit 2 ;;
  esac
done
storbed=$build/orchestrator/storbed
[[ -x $storbed ]] || { echo "reboot_efficiency: no storbed at $storbed (build first)" >&2; exit 1; }

rm -rf "$out"
mkdir -p "$out"
for mode in per_round per_machine; do
  python3 - "$scenario" "$out/$mode.json" "$mode" "$repeats" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
doc["order"] = "interleaved"
doc["reboot"] = sys.argv[3]
if sys.argv[4]:
    doc["repeats"] = int(sys.argv[4])
json.dump(doc, open(sys.argv[2], "w"), indent=1)
PY
  start=$(date +%s)
  "$storbed" run "$out/$mode.json" --out "$out/$mode" >"$out/$mode.log" 2>&1 || {
    echo "reboot_efficiency: the $mode run failed (log: $out/$mode.log)" >&2
    tail -20 "$out/$mode.log" >&2
    exit 1
  }
  echo "$mode: session took $(($(date +%s) - start)) s"
done
python3 - "$out" <<'PY'
import json, math, statistics, sys
out = sys.argv[1]
for mode in ("per_round", "per_machine"):
    m = json.load(open(f"{out}/{mode}/manifest.json"))
    e = m["efficiency"]
    boots = len(m.get("machines", {}))
    print(f"{mode}: {e['io_phase_s']:.1f} s of IO phases in {e['wall_s']:.1f} s of wall time "
          f"({e['share']:.2f}), {boots} guest boots")
    runs = json.load(open(f"{out}/{mode}/results.json"))
    runs = runs.get("runs", runs) if isinstance(runs, dict) else runs
    cells = {}
    for r in runs:
        if r.get("status") != "ok":
            continue
        p = dict(r.get("params", {}))
        rnd = p.pop("repeat", 0)
        key = r["target"] + " " + r["job"]["name"] + " " + json.dumps(p, sort_keys=True)
        cells.setdefault(key, []).append((rnd, r["result"]["iops"]))
    for key in sorted(cells):
        pts = sorted(cells[key])
        iops = [v for _, v in pts]
        med = statistics.median(iops)
        cv = statistics.stdev(iops) / statistics.mean(iops) * 100 if len(iops) > 1 else 0
        xs = [x for x, _ in pts]
        ys = [math.log(v) for _, v in pts]
        mx, my = statistics.mean(xs), statistics.mean(ys)
        sxx = sum((x - mx) ** 2 for x in xs)
        slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx if sxx else 0
        print(f"  {key:<70} median {med:9.0f} IOPS  CV {cv:5.1f}%  drift {100 * slope:+5.1f}%/round")
PY
