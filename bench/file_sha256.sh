#!/usr/bin/env bash
# Benchmark: FileSha256 (the hash of foreign images before and after each run, of kernels and
# agents) on one file of random data, at one or more git revisions, against coreutils'
# sha256sum. Each revision's images/ SHA-256 code is compiled with the build's flags (-O2 -g)
# into a tiny program; the rounds alternate the programs and report the median wall time.
# The file is read once first, so every round hashes from the page cache: this times the hash,
# not the disk.
#
#   bench/file_sha256.sh [--size MiB] [--rounds N] [--dir DIR] [REV...]
#
# REV defaults to the work tree. Example: bench/file_sha256.sh 9714825 HEAD (hand-written,
# nettle). The file (DIR/storbed-sha256-bench.bin, DIR=/var/tmp) is removed at the end.
set -euo pipefail

size=1024 rounds=5 dir=/var/tmp revs=()
while (($#)); do
  case $1 in
    --size) size=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --dir) dir=$2; shift 2 ;;
    -*) echo "file_sha256: unknown option $1" >&2; exit 2 ;;
    *) revs+=("$1"); shift ;;
  esac
done
((${#revs[@]})) || revs=(worktree)
src=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
file=$dir/storbed-sha256-bench.bin
trap 'rm -rf "$work" "$file"' EXIT

cat >"$work/main.cc" <<'CC'
#include <chrono>
#include <cstdio>
#include <string>
namespace storbed {
std::string FileSha256(const std::string& path);
}
int main(int, char** argv) {
  const auto start = std::chrono::steady_clock::now();
  const std::string hex = storbed::FileSha256(argv[1]);
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
  std::printf("%s %.3f\n", hex.c_str(), took.count());
}
CC
programs=()
for rev in "${revs[@]}"; do
  tree=$work/src-$rev
  mkdir -p "$tree/images"
  for f in sha256.h sha256.cc file_digest.h file_digest.cc; do
    if [[ $rev == worktree ]]; then
      [[ -f $src/images/$f ]] && cp "$src/images/$f" "$tree/images/$f"
    else
      git -C "$src" show "$rev:images/$f" >"$tree/images/$f" 2>/dev/null || rm -f "$tree/images/$f"
    fi
  done
  cc=$(ls "$tree"/images/*.cc)
  g++ -std=c++20 -O2 -g -I"$tree" "$work/main.cc" $cc -o "$work/hash-$rev" $(pkg-config --libs nettle)
  programs+=("$work/hash-$rev")
done

head -c $((size << 20)) /dev/urandom >"$file"
expected=$(sha256sum "$file" | cut -d' ' -f1)
declare -A times
for ((r = 0; r < rounds; r++)); do
  for i in "${!revs[@]}"; do
    read -r hex secs < <("${programs[$i]}" "$file")
    [[ $hex == "$expected" ]] || { echo "file_sha256: ${revs[$i]} gave $hex, sha256sum $expected" >&2; exit 1; }
    times[${revs[$i]}]+="$secs "
  done
  start=$(date +%s.%N)
  sha256sum "$file" >/dev/null
  times[sha256sum]+="$(echo "$(date +%s.%N) - $start" | bc) "
done
median() { tr ' ' '\n' | grep . | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
echo "FileSha256 of $size MiB from the page cache, median of $rounds rounds ($(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg)):"
for name in "${revs[@]}" sha256sum; do
  m=$(echo "${times[$name]}" | median)
  printf '  %-12s %6.2f s  %6.0f MiB/s   (%s)\n' "$name" "$m" "$(echo "$size / $m" | bc -l)" "${times[$name]}"
done
