#!/usr/bin/env bash
# Benchmark: a clean build of storbed and storbed-agent, no ccache, timed (issue 35). Prints
# the wall time and, under Ninja, the compiler time summed over its log, and the slowest jobs.
#
#   bench/build_time.sh BUILD_DIR [--unity ON|OFF] [--batch N] [--make] [-jN]
#
# BUILD_DIR is removed first. The defaults are the project's: unity ON, 16 a batch, Ninja.
set -euo pipefail

dir=${1:?usage: build_time.sh BUILD_DIR [--unity ON|OFF] [--batch N] [--make] [-jN]}; shift
unity=ON batch=16 generator=Ninja jobs=$(nproc)
while (($#)); do
  case $1 in
    --unity) unity=$2; shift 2 ;;
    --batch) batch=$2; shift 2 ;;
    --make) generator="Unix Makefiles"; shift ;;
    -j*) jobs=${1#-j}; shift ;;
    *) echo "build_time: unknown option $1" >&2; exit 2 ;;
  esac
done
src=$(cd "$(dirname "$0")/.." && pwd)
rm -rf "$dir"
mkdir -p "$dir"
start=$(date +%s.%N)
cmake -S "$src" -B "$dir" -G "$generator" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_UNITY_BUILD="$unity" -DCMAKE_UNITY_BUILD_BATCH_SIZE="$batch" >/dev/null
configured=$(date +%s.%N)
CCACHE_DISABLE=1 cmake --build "$dir" -j"$jobs" --target storbed storbed-agent >"$dir/build.log" 2>&1
built=$(date +%s.%N)
printf 'unity %s, batch %s, %s, -j%s: configure %.1f s, build %.1f s, %s warnings\n' \
  "$unity" "$batch" "$generator" "$jobs" "$(echo "$configured - $start" | bc)" \
  "$(echo "$built - $configured" | bc)" "$(grep -c 'warning:' "$dir/build.log" || true)"
if [[ -f $dir/.ninja_log ]]; then
  awk 'NR > 1 { s += ($2 - $1) / 1000; n++ } END { printf "compiler and linker time %.1f s over %d jobs; slowest:\n", s, n }' "$dir/.ninja_log"
  awk 'NR > 1 { printf "  %6.1f s  %s\n", ($2 - $1) / 1000, $4 }' "$dir/.ninja_log" | sort -rn | head -5
fi
