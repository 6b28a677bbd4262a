#!/usr/bin/env bash
# Runs a command with virtlogd and libvirtd up: starts the ones not running (as root),
# runs the command, then stops only the daemons this script started. Exit status is the
# command's.
set -uo pipefail
source "$(dirname "$0")/services-lib.sh"
started=()

if [[ $(id -u) -eq 0 ]]; then
  for daemon in virtlogd libvirtd; do
    if ! daemon_running "$daemon"; then
      if "$daemon" -d; then
        started+=("$daemon")
      else
        echo "with-services: $daemon did not start; libvirt tests will skip" >&2
      fi
    fi
  done
  wait_for_libvirtd || true
fi

stop_started() {
  # libvirtd first: it talks to virtlogd until it exits.
  for ((i = ${#started[@]} - 1; i >= 0; i--)); do
    daemon=${started[i]}
    pid=$(cat "/run/$daemon.pid" 2>/dev/null || pgrep -xo "$daemon" || true)
    [[ -n $pid ]] || continue
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 100); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    kill -0 "$pid" 2>/dev/null && kill -9 "$pid" 2>/dev/null
  done
}
trap stop_started EXIT

"$@"
