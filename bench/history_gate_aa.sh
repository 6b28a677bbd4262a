#!/usr/bin/env bash
# A/A check of `storbed gate`: NIGHTS+3 nights of one unchanged configuration (a null-co
# guest at 10 ms per request, 4 runs a night, one cell), each appended with --history, and
# every night from the fourth on gated against last:3. A sound gate exits 4 (worse) on at
# most about 1 of 20. Prints each gate's exit code and the counts.
# Usage: bench/history_gate_aa.sh BUILD_DIR [NIGHTS] [WORK_DIR]
set -uo pipefail
build=${1:?usage: history_gate_aa.sh BUILD_DIR [NIGHTS] [WORK_DIR]}
nights=${2:-20}
work=${3:-/var/tmp/storbed-history-aa}
storbed=$build/orchestrator/storbed
rm -rf "$work" && mkdir -p "$work"
cat >"$work/night.json" <<'JSON'
{"name": "gate-aa", "targets": ["virtio-blk"], "repeats": 4, "machine": {"memory": "256m"},
 "disk": {"size": "16m", "driver": "null-co", "null_latency": "10ms"},
 "jobs": [{"name": "r", "pattern": "random", "io_size": "256k"}]}
JSON
declare -A count
start=$(date +%s)
for ((n = 1; n <= nights + 3; n++)); do
  "$storbed" run "$work/night.json" --out "$work/n$n" --work-dir "$work" \
    --history "$work/history.db" >"$work/n$n.log" 2>&1 || { echo "night $n: run failed"; exit 1; }
  if ((n > 3)); then
    "$storbed" gate "$work/n$n" --history "$work/history.db" --baseline last:3 \
      >"$work/gate$n.txt" 2>&1
    code=$?
    count[$code]=$((${count[$code]:-0} + 1))
    echo "night $n: gate exit $code $(grep -o 'p50_us .*' "$work/gate$n.txt" | head -1 | tr -s ' ')"
    grep -E 'widens| worse( |$)' "$work/gate$n.txt" | sed 's/^/    /'
  fi
done
echo "$nights gates in $(($(date +%s) - start)) s:" \
  "$(for c in "${!count[@]}"; do echo -n "exit $c: ${count[$c]}  "; done)"
"$storbed" history "$work/history.db" | tail -3
rm -rf "$work"
