#!/usr/bin/env bash
# Builds a minimal Debian 12 (bookworm) guest image for storbed's foreign-image tests, here
# from the Debian mirror, nothing downloaded ready-made:
#   scripts/make-debian-image.sh [--cloud-init] [--cache DIR] [--mirror URL] [--security URL]
# Prints the directory holding the result:
#   DIR/debian12.qcow2   root file system (ext4 on the whole disk, no partition table,
#                        no bootloader)
#   DIR/vmlinuz          the image's own kernel, copied out of its /boot
#   DIR/initrd.img       the image's own initramfs (initramfs-tools, virtio drivers in)
#   DIR/append           the kernel command line the image expects (root=LABEL=storbed-root)
# storbed boots it with machine.image = debian12.qcow2, machine.kernel = vmlinuz,
# machine.initrd = initrd.img, machine.append = $(cat append): the image's kernel, the image
# as the root disk. Exporting the kernel beside the image is simpler and safer than a
# bootloader (no grub install in a chroot) or reading the image at run time (qemu-nbd).
#
# Cached by content: DIR is CACHE/<sha256 of this script + options>, CACHE defaults to
# /var/cache/storbed/images. A complete DIR (marked by DIR/complete) is reused as is.
# The image has qemu-guest-agent (started by udev when the org.qemu.guest_agent.0 port
# appears), no network wait, no serial getty, and a root account without a password
# reachable only from the console (there is no network service).
set -euo pipefail

cloud_init=0
cache=/var/cache/storbed/images
mirror=http://deb.debian.org/debian
# Like this host's apt sources: bookworm, bookworm-updates and bookworm-security, so the
# image's kernel is the one the host's own guests run (the same release to compare with).
security=http://deb.debian.org/debian-security
while [[ $# -gt 0 ]]; do
  case $1 in
    --cloud-init) cloud_init=1 ;;
    --cache) cache=$2; shift ;;
    --mirror) mirror=$2; shift ;;
    --security) security=$2; shift ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) echo "make-debian-image: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done

packages=linux-image-amd64,initramfs-tools,systemd,systemd-sysv,udev,qemu-guest-agent,e2fsprogs,util-linux,kmod
[[ $cloud_init -eq 1 ]] && packages+=,cloud-init,dosfstools

key=$( { cat "$0"; echo "packages=$packages cloud_init=$cloud_init mirror=$mirror security=$security"; } | sha256sum | cut -c1-16)
dir=$cache/debian12-$key
if [[ -f $dir/complete ]]; then
  echo "$dir"
  exit 0
fi

for tool in mmdebstrap mkfs.ext4 qemu-img; do
  command -v "$tool" >/dev/null || { echo "make-debian-image: $tool not found (apt-get install it)" >&2; exit 2; }
done
[[ $(id -u) -eq 0 ]] || { echo "make-debian-image: needs root (mmdebstrap root mode, mkfs.ext4 -d with owners)" >&2; exit 2; }

# mmdebstrap's apt hooks run `cat >&N` through /bin/sh, and dash takes only fds 0-9 there
# ("Bad fd number"): N is the first fd free in this process, so fds inherited from the
# caller (a shell with fd 10 open made it 11) are closed first. 255 is bash's own script.
for fd in /proc/$$/fd/*; do
  fd=${fd##*/}
  ((fd > 2 && fd != 255)) && eval "exec $fd>&-" 2>/dev/null
done

mkdir -p "$cache"
work=$(mktemp -d "$cache/.build-XXXXXX")
trap 'rm -rf "$work"' EXIT
root=$work/root
start=$(date +%s)

# The essential hook runs before the kernel is installed: its initramfs gets only the drivers
# of a storbed root disk (MODULES=list and a hook adding them) instead of most of them, a few
# MB for a TCG guest to unpack instead of tens. The customize hooks run with the finished
# tree in $1: the settings a fast, quiet test boot needs, and a smaller image: no docs, no
# modules for hardware a VM never has (sound, GPUs, wireless, ...).
mmdebstrap --variant=minbase --include="$packages" \
  --essential-hook='mkdir -p "$1/etc/initramfs-tools/conf.d" "$1/etc/initramfs-tools/hooks"
      echo MODULES=list > "$1/etc/initramfs-tools/conf.d/storbed"
      printf "%s\n" "#!/bin/sh" "[ \"\$1\" = prereqs ] && exit 0" ". /usr/share/initramfs-tools/hook-functions" \
        "manual_add_modules virtio_pci virtio_blk virtio_scsi sd_mod nvme ext4 crc32c_generic" \
        > "$1/etc/initramfs-tools/hooks/storbed"
      chmod 755 "$1/etc/initramfs-tools/hooks/storbed"' \
  --customize-hook='echo storbed-guest > "$1/etc/hostname"' \
  --customize-hook='echo "LABEL=storbed-root / ext4 defaults,noatime 0 1" > "$1/etc/fstab"' \
  --customize-hook='chroot "$1" passwd -d root' \
  --customize-hook='for u in systemd-networkd-wait-online.service systemd-time-wait-sync.service \
      serial-getty@ttyS0.service serial-getty@hvc0.service getty@tty1.service apt-daily.timer \
      apt-daily-upgrade.timer e2scrub_all.timer fstrim.timer man-db.timer; do
      ln -sf /dev/null "$1/etc/systemd/system/$u"; done' \
  --customize-hook='rm -rf "$1"/var/cache/apt/archives/*.deb "$1"/var/lib/apt/lists/* \
      "$1"/usr/share/doc "$1"/usr/share/man "$1"/usr/share/locale' \
  --customize-hook='for d in sound drivers/gpu drivers/media drivers/net/wireless drivers/infiniband \
      drivers/staging drivers/bluetooth drivers/iio drivers/hid net/wireless net/bluetooth; do
      rm -rf "$1"/usr/lib/modules/*/kernel/$d; done
      for k in "$1"/usr/lib/modules/*; do chroot "$1" depmod "${k##*/}"; done' \
  bookworm "$root" "deb $mirror bookworm main" "deb $mirror bookworm-updates main" \
  "deb $security bookworm-security main"

if [[ $cloud_init -eq 1 ]]; then
  # Only the NoCloud seed disk: no metadata server probing (a long wait without network).
  echo 'datasource_list: [ NoCloud, None ]' > "$root/etc/cloud/cloud.cfg.d/90-storbed.cfg"
fi

kernel=$(ls "$root"/boot/vmlinuz-* | sort -V | tail -1)
release=${kernel##*/vmlinuz-}
mkdir -p "$work/out"
cp "$kernel" "$work/out/vmlinuz"
cp "$root/boot/initrd.img-$release" "$work/out/initrd.img"
# panic=-1 with storbed's -no-reboot: a guest that cannot mount its root ends at once.
echo "root=LABEL=storbed-root ro console=ttyS0 quiet panic=-1" > "$work/out/append"
echo "$release" > "$work/out/kernel-release"

# A file system sized to the tree plus room for logs; ext4 straight on the disk, no partitions.
used_mb=$(du -sm "$root" | cut -f1)
size_mb=$(( used_mb + used_mb / 4 + 64 ))
mkfs.ext4 -q -L storbed-root -d "$root" "$work/root.ext4" "${size_mb}M"
qemu-img convert -c -O qcow2 "$work/root.ext4" "$work/out/debian12.qcow2"
rm -f "$work/root.ext4"

end=$(date +%s)
{
  echo "packages=$packages"
  echo "cloud_init=$cloud_init"
  echo "mirror=$mirror"
  echo "security=$security"
  echo "kernel_release=$release"
  echo "tree_mb=$used_mb"
  echo "build_seconds=$((end - start))"
} > "$work/out/build-info"
touch "$work/out/complete"
rm -rf "$dir"
mv "$work/out" "$dir"
echo "$dir"
