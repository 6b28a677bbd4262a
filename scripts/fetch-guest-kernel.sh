#!/usr/bin/env bash
# Unpacks a Debian kernel package as a guest kernel for storbed, without installing it on
# the host (no /boot, no initramfs, no bootloader change):
#   scripts/fetch-guest-kernel.sh [PACKAGE [DEST]]
# PACKAGE defaults to linux-image-cloud-amd64 (a metapackage is followed to its image),
# DEST to /var/cache/storbed/kernels/PACKAGE. DEST/vmlinuz links to boot/vmlinuz-<release>
# and DEST/lib/modules/<release> gets its modules.dep from depmod, so a scenario names it
# as machine.kernel: "DEST/vmlinuz" (storbed finds the modules beside it).
set -euo pipefail

package=${1:-linux-image-cloud-amd64}
dest=${2:-/var/cache/storbed/kernels/$package}

if ! apt-cache show "$package" >/dev/null 2>&1; then
  echo "fetch-guest-kernel: no package $package in the apt lists (run apt-get update?)" >&2
  exit 2
fi
# A metapackage (linux-image-cloud-amd64) depends on the versioned image package.
image=$package
dep=$(apt-cache depends "$package" 2>/dev/null | sed -n 's/^ *Depends: \(linux-image-[0-9].*\)$/\1/p' | head -1)
[[ -n $dep ]] && image=$dep

tmp=$(mktemp -d)
chmod 755 "$tmp"  # apt-get download drops to the _apt user
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && apt-get download -q "$image" >/dev/null)
deb=$(ls "$tmp"/*.deb)
mkdir -p "$dest"
dpkg-deb -x "$deb" "$dest"
kernel=$(ls "$dest"/boot/vmlinuz-* | sort -V | tail -1)
release=${kernel##*/vmlinuz-}
depmod -b "$dest" "$release"
ln -sfn "boot/vmlinuz-$release" "$dest/vmlinuz"
echo "$dest/vmlinuz -> $kernel (release $release, modules in $dest/lib/modules/$release)"
