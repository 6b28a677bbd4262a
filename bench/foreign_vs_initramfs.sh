#!/usr/bin/env bash
# Benchmark: one job in the foreign Debian 12 guest (scripts/make-debian-image.sh, its own
# kernel, agent pushed through qemu-guest-agent) and in storbed's initramfs guest (the host's
# newest /boot kernel), on the same buses, under the same accelerator. Prints each run's
# IOPS, both guests' kernel releases and the foreign guest's boot time (up to the agent's
# hello). Not a test: TCG figures on a shared machine vary from run to run.
#
#   bench/foreign_vs_initramfs.sh [BUILD_DIR] [--targets virtio-blk,nvme] [--runtime S]
#                                 [--accel tcg|kvm|auto] [--out DIR]
set -euo pipefail

build=${1:-build}; shift || true
targets=virtio-blk,nvme runtime=10 accel=tcg out=/var/tmp/storbed-foreign-bench
while (($#)); do
  case $1 in
    --targets) targets=$2; shift 2 ;;
    --runtime) runtime=$2; shift 2 ;;
    --accel) accel=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) echo "foreign_vs_initramfs: unknown option $1" >&2; exit 2 ;;
  esac
done
storbed=$build/orchestrator/storbed
agent=$build/guest-agent/storbed-agent
[[ -x $storbed && -x $agent ]] || { echo "foreign_vs_initramfs: build storbed and storbed-agent first" >&2; exit 1; }
image_dir=$("$(dirname "$0")/../scripts/make-debian-image.sh" | tail -1)

rm -rf "$out"
mkdir -p "$out"
targets_json=$(jq -cn --arg t "$targets" '$t | split(",")')
job=$(jq -cn --argjson r "$runtime" \
  '{name: "randread-4k", pattern: "random", bs: "4k", ioengine: "psync", iodepth: 1, runtime: $r, io_size: "1g"}')
machine_common=$(jq -cn --arg a "$accel" '{memory: "1g", accel: $a, boot_timeout: 300}')
foreign=$(jq -cn --arg d "$image_dir" --arg ap "$(cat "$image_dir/append")" \
  '{image: ($d + "/debian12.qcow2"), kernel: ($d + "/vmlinuz"), initrd: ($d + "/initrd.img"), append: $ap}')

for guest in initramfs foreign; do
  extra='{}'
  [[ $guest == foreign ]] && extra=$foreign
  jq -n --arg n "$guest" --argjson t "$targets_json" --argjson m "$machine_common" \
    --argjson x "$extra" --argjson j "$job" \
    '{name: $n, targets: $t, machine: ($m + $x), disk: {size: "256m"}, jobs: [$j]}' \
    > "$out/$guest.json"
  "$storbed" run "$out/$guest.json" --out "$out/$guest" --agent "$agent" --quiet > "$out/$guest.log" 2>&1 ||
    { echo "foreign_vs_initramfs: the $guest run failed, see $out/$guest.log" >&2; exit 1; }
done

echo "# 4k random read, psync qd1, O_DIRECT, ${runtime}s, 256 MiB disk, accel $accel; storbed $(git -C "$(dirname "$0")/.." rev-parse --short HEAD)"
printf '%-10s %-11s %-16s %10s %8s %s\n' guest target kernel iops boot_s agent_push
for guest in initramfs foreign; do
  for t in ${targets//,/ }; do
    m=$(jq -c --arg t "$t" '.machines[$t]' "$out/$guest/manifest.json")
    iops=$(jq -r --arg t "$t" '[.[] | select(.target == $t and .status == "ok")][0].result.iops' \
      "$out/$guest/results.json")
    printf '%-10s %-11s %-16s %10.0f %8.1f %s\n' "$guest" "$t" "$(jq -r .guest_kernel <<<"$m")" \
      "$iops" "$(jq -r .boot_s <<<"$m")" "$(jq -r .agent_push.path <<<"$m")"
  done
done
