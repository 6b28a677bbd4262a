#!/usr/bin/env bash
# Installs what storbed needs on Debian 12, only what is missing; quiet when all is there.
set -euo pipefail

packages=(
  build-essential cmake pkg-config git
  ninja-build  # the build: compiles files of different targets at once (make waits per target)
  ccache  # a rebuild from a fresh clone (CI) reuses earlier compiles (CMakeLists.txt)
  lld  # links in a quarter of GNU ld's time (CMakeLists.txt)
  libboost-dev libboost-filesystem-dev libcli11-dev nlohmann-json3-dev libgtest-dev libgmock-dev
  liburing-dev libaio-dev liblzma-dev libzstd-dev libvirt-dev libsqlite3-dev sqlite3
  libpq-dev  # the history on a lab's PostgreSQL server (history/postgres_db.cc)
  postgresql  # initdb and pg_ctl: the history tests' private cluster on a unix socket
  nettle-dev  # SHA-256 of images and agents (images/file_digest.h)
  libxml2-dev  # reading the XML libvirt hands back (libvirt/xml_doc.h)
  qemu-system-x86 qemu-utils linux-image-amd64 cpio kmod fio e2fsprogs xfsprogs
  libvirt-daemon-system libvirt-clients
  openssh-server
  mmdebstrap  # scripts/make-debian-image.sh: the Debian 12 image of the foreign-image tests
  genisoimage  # the NoCloud seed disk (cidata) of a foreign guest's cloud-init way in
  busybox-static  # bench/boot_ratio.sh: the busybox-init boot storbed's is measured against
  chromium  # the integration tests open report.html in it, headless
  man-db lintian  # the man pages rendered in a test; the package test's lint
  clang libclang-rt-14-dev  # make sanitize: ASan/UBSan runtimes and libFuzzer (tests/fuzz)
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  if [[ $(id -u) -ne 0 ]]; then
    echo "setup: need root to install packages (run as root or with sudo)" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q >/dev/null
  apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
fi
