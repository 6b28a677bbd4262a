#!/usr/bin/env bash
# Runs each libFuzzer target (tests/fuzz) for SECONDS from its seed corpus and prints, per
# target, how long it ran, its runs, execs/s and whether it crashed. New corpus entries and
# crash inputs go to a scratch dir, never into the tree: copy a crash input to
# tests/fuzz/corpus/<target>/ with the fix, so CI replays it from then on.
#
#   bench/fuzz.sh [-t SECONDS] [-T SECONDS] [-j PARALLEL] [-o SCRATCH] [-n] [TARGET...]
#
# -t  seconds per target (default 600)
# -T  seconds one input may take before it counts as a hang (default 10; libFuzzer's alarm
#     is wall time, so raise it on a loaded machine: the 405 KB seed of results_fuzz takes
#     2 s of CPU under ASan, and over 10 s of wall at nice 19 beside two busy cores)
# -j  targets at once (default 2; each fuzzer uses one core)
# -o  scratch dir (default /tmp/storbed-fuzz): <target>/corpus, <target>/crash-*, <target>/log
# -n  no build: use the fuzzers in $SAN_BUILD as they are (by default `make sanitize-build`
#     brings them up to date first)
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=600
input_timeout=10
parallel=2
scratch=/tmp/storbed-fuzz
build=1
while getopts "t:T:j:o:n" opt; do
  case $opt in
    t) seconds=$OPTARG ;;
    T) input_timeout=$OPTARG ;;
    j) parallel=$OPTARG ;;
    o) scratch=$OPTARG ;;
    n) build=0 ;;
    *) sed -n '2,17p' "$0" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))

san_build=${SAN_BUILD:-build-san}
((build)) && make -s sanitize-build SAN_BUILD="$san_build" JOBS="${JOBS:-2}" >&2

targets=("$@")
if ((${#targets[@]} == 0)); then
  for dir in tests/fuzz/corpus/*/; do targets+=("$(basename "$dir")"); done
fi

# One target: libFuzzer writes new inputs to the first corpus dir (scratch) and reads the
# seeds from the second; -print_final_stats gives the run count and the exec rate.
run_one() {
  local target=$1 out=$scratch/$1
  mkdir -p "$out/corpus"
  local start=$SECONDS status=0
  "$san_build/tests/fuzz/$target" -max_total_time="$seconds" -timeout="$input_timeout" -print_final_stats=1 \
    -artifact_prefix="$out/" "$out/corpus" "tests/fuzz/corpus/$target" >"$out/log" 2>&1 ||
    status=$?
  echo "$((SECONDS - start)) $status" >"$out/done"
}

mkdir -p "$scratch"
for target in "${targets[@]}"; do
  [[ -x $san_build/tests/fuzz/$target ]] || { echo "fuzz.sh: no fuzzer '$target'" >&2; exit 2; }
  rm -f "$scratch/$target/done" "$scratch/$target"/crash-* "$scratch/$target"/timeout-* \
    "$scratch/$target"/oom-* "$scratch/$target"/leak-*
  while (($(jobs -rp | wc -l) >= parallel)); do wait -n || true; done
  echo "fuzz.sh: $target for ${seconds}s ($(date +%H:%M:%S))" >&2
  run_one "$target" &
done
wait

printf '%-18s %8s %12s %10s  %s\n' target seconds runs execs/s result
for target in "${targets[@]}"; do
  out=$scratch/$target
  read -r took status <"$out/done"
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out/log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$out/log" | tail -1)
  artifacts=$(find "$out" -maxdepth 1 -name 'crash-*' -o -maxdepth 1 -name 'timeout-*' \
    -o -maxdepth 1 -name 'oom-*' -o -maxdepth 1 -name 'leak-*' | tr '\n' ' ')
  if [[ $status == 0 ]]; then result="no crash"; else result="CRASHED (exit $status): $artifacts"; fi
  printf '%-18s %8s %12s %10s  %s\n' "$target" "$took" "${runs:-?}" "${rate:-?}" "$result"
done
