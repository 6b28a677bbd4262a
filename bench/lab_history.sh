#!/usr/bin/env bash
# A lab on one PostgreSQL history, for real: 3 simulated hosts (3 processes at once) x NIGHTS
# nights of real null-co runs, each run relabelled as its host (host.hostname, cpu.model,
# so its own fingerprint class) and its night (started_at), and imported into one database
# of a private cluster as soon as it ends. Two scenarios: "suite-step" 10 ms a request, 15 ms
# from night 7 on every host; "host-step" the same on lab2 alone. Then checks: every session
# once, `history --by-host` reports one suite change and one lab2 change at night 7, and each
# host's gate of its last night gives the same exit and JSON on PostgreSQL as on an SQLite
# copy. Prints the timings. Usage: bench/lab_history.sh BUILD_DIR [NIGHTS] [WORK_DIR]
set -euo pipefail
build=${1:?usage: lab_history.sh BUILD_DIR [NIGHTS] [WORK_DIR]}
nights=${2:-10}
work=${3:-/var/tmp/storbed-lab-history}
storbed=$(realpath "$build/orchestrator/storbed")
pg_bin=${STORBED_TEST_PG_BIN:-/usr/lib/postgresql/15/bin}
rm -rf "$work" && mkdir -p "$work"
pg=$(mktemp -d /tmp/storbed-pg-XXXXXX)
as_owner=()
if [[ $(id -u) == 0 ]]; then chown postgres: "$pg"; as_owner=(runuser -u postgres --); fi
stop_pg() { "${as_owner[@]}" "$pg_bin/pg_ctl" -D "$pg/data" -m immediate -w stop >/dev/null 2>&1 || true; rm -rf "$pg"; }
trap stop_pg EXIT
"${as_owner[@]}" "$pg_bin/initdb" -D "$pg/data" -A trust -U postgres --no-sync --locale=C.UTF-8 >"$work/initdb.log"
"${as_owner[@]}" "$pg_bin/pg_ctl" -D "$pg/data" -l "$pg/server.log" -w \
  -o "-k $pg -c listen_addresses='' -c fsync=off" start >"$work/pg_ctl.log"
"$pg_bin/psql" -h "$pg" -U postgres -qc "CREATE ROLE storbed LOGIN" -c "CREATE DATABASE lab OWNER storbed"
uri="postgresql:///lab?host=$pg&user=storbed"

scenario() {  # NAME LATENCY
  cat >"$work/$1-$2.json" <<JSON
{"name": "$1", "targets": ["virtio-blk"], "repeats": 3, "machine": {"memory": "256m"},
 "disk": {"size": "16m", "driver": "null-co", "null_latency": "$2"},
 "jobs": [{"name": "r", "pattern": "random", "io_size": "256k"}]}
JSON
}
for s in suite-step host-step; do scenario $s 10ms; scenario $s 15ms; done

# Host $1 (0, 1, 2): its nights of both scenarios, each run relabelled and imported at once.
host() {
  local h=$1 name="lab$(($1 + 1))"
  # One warm-up run first, not imported: each host's first run, all three starting at once
  # (the guest image built, the page cache cold), ran 15-37% low, at the new level, and a
  # night at the new level before the step hides it at 10 nights (docs/history.md). A lab's
  # host has run many nights before the ones its history holds.
  "$storbed" run "$work/suite-step-10ms.json" --out "$work/warmup-$name" --work-dir "$work" \
    >"$work/warmup-$name.log" 2>&1
  for ((n = 1; n <= nights; n++)); do
    for s in suite-step host-step; do
      local latency=10ms
      if ((n >= 7)) && [[ $s == suite-step || $name == lab2 ]]; then latency=15ms; fi
      local dir="$work/$s-$name-n$n"
      "$storbed" run "$work/$s-$latency.json" --out "$dir" --work-dir "$work" >"$dir.log" 2>&1
      python3 - "$dir/manifest.json" "$name" "$n" "$h" <<'PY'
import json, sys
path, host, night, h = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
m = json.load(open(path))
m["host"]["hostname"] = host
m["environment"]["cpu.model"] = m["environment"].get("cpu.model", "") + " (" + host + ")"
m["started_at"] = "2026-12-%02dT02:0%s:00Z" % (night, h)
m["session"] = host + "-" + str(night) + "-" + m["session"]
json.dump(m, open(path, "w"))
PY
      "$storbed" history import "$dir" --history "$uri" >>"$work/import-$name.log" 2>&1
    done
  done
}
start=$(date +%s.%N)
pids=()
for h in 0 1 2; do host $h & pids+=($!); done
for p in "${pids[@]}"; do wait "$p"; done
runs_s=$(python3 -c "import time; print(round(time.time() - $start, 1))")
echo "3 hosts x $nights nights x 2 scenarios of null-co runs, imported at once: $runs_s s"

sessions=$("$pg_bin/psql" -h "$pg" -U storbed -d lab -tAc "SELECT count(*), count(DISTINCT session) FROM sessions")
echo "sessions (count, distinct): $sessions (expected $((3 * nights * 2)))"
t0=$(date +%s.%N)
"$storbed" history "$uri" --by-host --json >"$work/by-host.json"
"$storbed" history "$uri" --by-host --metric p50_us | grep -E "change|no change" || true
python3 - "$work/by-host.json" <<'PY'
import json, sys
for s in json.load(open(sys.argv[1]))["scenarios"]:
    for c in s["cells"]:
        print(s["scenario"], s["metric"], c["cell"], [(x["scope"], x["night"], [h["host"] for h in x["hosts"]]) for x in c["changes"]])
PY
"$storbed" history migrate "$uri" "$work/copy.db" | tail -1
same=0
for name in lab1 lab2 lab3; do
  for s in suite-step host-step; do
    tonight="$work/$s-$name-n$nights"
    set +e
    "$storbed" gate "$tonight" --history "$uri" --json >"$work/gate-pg-$s-$name.json" 2>"$work/gate-pg-$s-$name.err"
    a=$?
    "$storbed" gate "$tonight" --history "$work/copy.db" --json >"$work/gate-sqlite-$s-$name.json" 2>/dev/null
    b=$?
    set -e
    cmp -s "$work/gate-pg-$s-$name.json" "$work/gate-sqlite-$s-$name.json" && [[ $a == "$b" ]] && same=$((same + 1))
    echo "gate $s $name: exit $a (PostgreSQL) $b (SQLite); $(head -1 "$work/gate-pg-$s-$name.err")"
  done
done
echo "gates with the same exit and JSON on both engines: $same of 6"
"$storbed" report --history "$uri" --lab --html "$work/lab.html" 2>&1
echo "history, migrate, 6 gates and the lab page: $(python3 -c "import time; print(round(time.time() - $t0, 1))") s"
