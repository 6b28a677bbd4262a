#!/usr/bin/env bash
# Derives a variant of an image scripts/make-debian-image.sh built, for the tests of the
# ways an agent cannot get in, without a second mmdebstrap:
#   scripts/derive-debian-image.sh BASE_DIR [--block-guest-exec] [--disable-cloud-init]
#                                  [--udev-read-ahead KB]
#     --block-guest-exec    /etc/qemu/qemu-ga.conf: block-rpcs=guest-exec (qemu-ga refuses it)
#     --disable-cloud-init  /etc/cloud/cloud-init.disabled (cloud-init's own off switch)
#     --udev-read-ahead KB  /etc/udev/rules.d/60-storbed-read-ahead.rules setting the
#                           read_ahead_kb of virtio and NVMe disks (a guest's own tuning)
# Prints the directory holding the result (same files as BASE_DIR). The files are written
# into a raw copy of the root file system with debugfs: nothing is mounted.
# Cached: BASE_DIR-v<hash of this script, BASE_DIR's image hash and the options>.
set -euo pipefail

[[ $# -ge 1 ]] || { sed -n '2,12p' "$0"; exit 2; }
base=${1%/}; shift
block=0 nocloud=0 read_ahead=
while [[ $# -gt 0 ]]; do
  case $1 in
    --block-guest-exec) block=1 ;;
    --disable-cloud-init) nocloud=1 ;;
    --udev-read-ahead)
      read_ahead=${2:-}; shift
      [[ $read_ahead =~ ^[0-9]+$ ]] || { echo "derive-debian-image: --udev-read-ahead wants a number of KiB, not '$read_ahead'" >&2; exit 2; } ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    *) echo "derive-debian-image: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
[[ -f $base/complete ]] || { echo "derive-debian-image: $base is not a finished image directory (no complete marker)" >&2; exit 2; }
for tool in debugfs qemu-img e2fsck; do
  command -v "$tool" >/dev/null || { echo "derive-debian-image: $tool not found (apt-get install e2fsprogs qemu-utils)" >&2; exit 2; }
done

key=$( { cat "$0"; sha256sum < "$base/debian12.qcow2"; echo "block=$block nocloud=$nocloud read_ahead=$read_ahead"; } | sha256sum | cut -c1-16)
dir=$base-v$key
if [[ -f $dir/complete ]]; then
  echo "$dir"
  exit 0
fi

work=$(mktemp -d "$(dirname "$base")/.derive-XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir "$work/out"
qemu-img convert -O raw "$base/debian12.qcow2" "$work/root.raw"
: > "$work/cmds"
if [[ $block -eq 1 ]]; then
  printf '[general]\nblock-rpcs=guest-exec\n' > "$work/qemu-ga.conf"
  chmod 644 "$work/qemu-ga.conf"
  printf 'mkdir /etc/qemu\ncd /etc/qemu\nrm qemu-ga.conf\nwrite %s qemu-ga.conf\n' "$work/qemu-ga.conf" >> "$work/cmds"
fi
if [[ $nocloud -eq 1 ]]; then
  : > "$work/empty"
  chmod 644 "$work/empty"
  printf 'mkdir /etc/cloud\ncd /etc/cloud\nwrite %s cloud-init.disabled\n' "$work/empty" >> "$work/cmds"
fi
if [[ -n $read_ahead ]]; then
  printf 'ACTION=="add|change", KERNEL=="vd[a-z]*|nvme[0-9]*n[0-9]*", ATTR{queue/read_ahead_kb}="%s"\n' "$read_ahead" > "$work/ra.rules"
  chmod 644 "$work/ra.rules"
  printf 'cd /etc/udev/rules.d\nwrite %s 60-storbed-read-ahead.rules\n' "$work/ra.rules" >> "$work/cmds"
fi
# debugfs reports "already exists" / "not found" for the mkdir and rm lines and goes on.
debugfs -w -f "$work/cmds" "$work/root.raw" >/dev/null 2>&1
e2fsck -fn "$work/root.raw" >"$work/fsck.log" 2>&1 || { cat "$work/fsck.log" >&2; exit 1; }
qemu-img convert -c -O qcow2 "$work/root.raw" "$work/out/debian12.qcow2"
rm -f "$work/root.raw"
for f in vmlinuz initrd.img append kernel-release; do cp "$base/$f" "$work/out/"; done
{ cat "$base/build-info"; echo "derived_from=$base block_guest_exec=$block disable_cloud_init=$nocloud udev_read_ahead=$read_ahead"; } > "$work/out/build-info"
touch "$work/out/complete"
rm -rf "$dir"
mv "$work/out" "$dir"
echo "$dir"
