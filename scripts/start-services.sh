#!/usr/bin/env bash
# Starts what the tests need and the machine may not run yet: libvirtd and virtlogd.
set -euo pipefail
if [[ $(id -u) -eq 0 ]]; then
  pgrep -x virtlogd >/dev/null || virtlogd -d || true
  pgrep -x libvirtd >/dev/null || libvirtd -d || true
fi
