#!/usr/bin/env bash
# `make test`'s tests, in three phases arranged so that both cores stay busy:
#   scripts/run-tests.sh BUILD SAN_BUILD JOBS WERROR
# 1. The unit tests' shards, JOBS at a time.
# 2. The VM tests that may share the machine, JOBS at a time.
#    Beside 1 and 2, the sanitizer build (`make sanitize-build`) runs at idle CPU priority
#    (SCHED_IDLE), one job: it gets the cycles the tests leave.
# 3. The VM tests that must not share the machine with another guest (label vm-alone;
#    tests/CMakeLists.txt says which and why), one at a time. Alone they leave about one
#    core idle, so beside them, one after the other: `make sanitize` (what is left of that
#    build, then its tests, one at a time) and the package test (label package). Neither
#    starts a guest or a storbed run outside its own root.
# A VM test that fails runs once more (the Makefile says why). Each phase runs only if the
# one before passed. The logs of what ran beside the tests are printed after them.
set -uo pipefail

(($# >= 3)) || { echo "usage: run-tests.sh BUILD SAN_BUILD JOBS [WERROR]" >&2; exit 2; }
build=$(realpath -m "$1")
san_build=$(realpath -m "$2")
jobs=$3
werror=${4-}
here=$(cd "$(dirname "$0")/.." && pwd)
make=(make --no-print-directory -C "$here" BUILD="$build" SAN_BUILD="$san_build" WERROR="$werror")

# setsid: each background job is its own process group, so one kill stops all of it.
background=()
stop_background() {
  local pid
  for pid in "${background[@]}"; do kill -TERM -- "-$pid" 2>/dev/null; done
}
trap stop_background EXIT
trap 'exit 130' INT TERM

setsid chrt --idle 0 "${make[@]}" sanitize-build JOBS=1 >"$build/sanitize-build.log" 2>&1 &
background=($!)
cd "$build" || exit 2
ctest --output-on-failure -j"$jobs" -L shard &&
  ctest --output-on-failure -j"$jobs" --repeat until-pass:2 -LE 'bench|unit|shard|alone|package'
status=$?
stop_background
wait
echo "== the sanitizer build beside phases 1 and 2 (idle priority, one job), until they ended:"
cat "$build/sanitize-build.log"
((status == 0)) || exit "$status"

# The package test is ctest's debian_package (tests/CMakeLists.txt), run here by its script:
# a second ctest in this build directory would write over the first one's logs.
setsid bash -c '"${@:3}" sanitize JOBS=1 && "$1" "$2"' _ \
  "$here/tests/package/package_test.sh" "$build" "${make[@]}" >"$build/beside.log" 2>&1 &
background=($!)
ctest --output-on-failure -j1 --repeat until-pass:2 -L alone
status=$?
wait "${background[0]}"
beside_status=$?
background=()
echo "== make sanitize and the package test, beside the tests that run alone:"
cat "$build/beside.log"
((status == 0 && beside_status == 0))
