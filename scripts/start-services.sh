#!/usr/bin/env bash
# Starts what the tests need and the machine may not run yet: virtlogd and libvirtd. They
# stay up (make test uses with-services.sh, which also stops what it started).
set -euo pipefail
source "$(dirname "$0")/services-lib.sh"
if [[ $(id -u) -eq 0 ]]; then
  daemon_running virtlogd || virtlogd -d || true
  daemon_running libvirtd || libvirtd -d || true
  wait_for_libvirtd || true
fi
