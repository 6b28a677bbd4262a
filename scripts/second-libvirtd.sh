#!/usr/bin/env bash
# A second libvirtd on this machine, for tests that need two libvirt hosts:
#   second-libvirtd.sh start DIR PORT   starts it, waits until it answers, prints its URI
#   second-libvirtd.sh stop DIR         destroys its domains, stops it, removes DIR
# It runs in a private mount namespace with tmpfs over libvirt's run, state, cache and
# log directories and DIR/etc (a copy of /etc/libvirt) over /etc/libvirt, so it shares
# nothing with the system daemon; it listens on qemu+tcp://127.0.0.1:PORT/system without
# auth. QEMU logs go to files (stdio_handler = "file"), so it needs no virtlogd; it uses no
# cgroups, so its guests cannot collide with the system daemon's. Needs root.
# Pools it is given must live outside the overlaid paths, e.g. DIR/pool.
set -euo pipefail

usage() { echo "usage: $0 start DIR PORT | stop DIR" >&2; exit 2; }
[[ $# -ge 2 ]] || usage
cmd=$1 dir=$2
overlaid=(/run/libvirt /var/lib/libvirt /var/cache/libvirt /var/log/libvirt)

start() {
  local port=$1 uri="qemu+tcp://127.0.0.1:$1/system"
  [[ $(id -u) -eq 0 ]] || { echo "second-libvirtd: needs root" >&2; exit 1; }
  mkdir -p "$dir"
  # Its QEMU runs as the qemu user and opens pool volumes under DIR: let it pass through.
  chmod 0711 "$dir"
  rm -rf "$dir/etc"
  cp -a /etc/libvirt "$dir/etc"
  # No autostarted networks or pools: they belong to the system daemon.
  rm -rf "$dir/etc/qemu/networks/autostart" "$dir/etc/storage/autostart"
  cat >>"$dir/etc/libvirtd.conf" <<CONF

# second-libvirtd.sh
listen_tls = 0
listen_tcp = 1
tcp_port = "$port"
listen_addr = "127.0.0.1"
auth_tcp = "none"
log_outputs = "3:file:$dir/libvirtd.log"
CONF
  cat >>"$dir/etc/qemu.conf" <<CONF

# second-libvirtd.sh
stdio_handler = "file"
cgroup_controllers = [ ]
CONF
  # The daemon daemonizes (-d) inside the namespace; the namespace lives as long as it does.
  unshare --mount --propagation private -- bash -c '
    set -e
    for d in '"${overlaid[*]}"'; do mkdir -p "$d"; mount -t tmpfs tmpfs "$d"; done
    mount --bind "$1/etc" /etc/libvirt
    exec libvirtd -d --listen -f /etc/libvirt/libvirtd.conf -p "$1/libvirtd.pid"
  ' second-libvirtd "$dir"
  for _ in $(seq 100); do
    if virsh -c "$uri" uri >/dev/null 2>&1; then echo "$uri"; return 0; fi
    sleep 0.1
  done
  echo "second-libvirtd: no answer at $uri within 10 s; log: $dir/libvirtd.log" >&2
  stop_daemon
  exit 1
}

stop_daemon() {
  local pid
  pid=$(cat "$dir/libvirtd.pid" 2>/dev/null) || return 0
  kill -0 "$pid" 2>/dev/null || return 0
  # Domains outlive a stopped libvirtd: destroy them first.
  local port
  port=$(sed -n 's/^tcp_port = "\(.*\)"$/\1/p' "$dir/etc/libvirtd.conf" | tail -1)
  if [[ -n $port ]]; then
    local uri="qemu+tcp://127.0.0.1:$port/system"
    for dom in $(virsh -c "$uri" list --name 2>/dev/null); do
      virsh -c "$uri" destroy "$dom" >/dev/null 2>&1 || true
    done
  fi
  # Any QEMU left (a domain virsh could not destroy): its pid file is in the daemon's
  # private /run, reachable through /proc/PID/root.
  local qemu_pids=()
  for f in /proc/"$pid"/root/run/libvirt/qemu/*.pid; do
    [[ -f $f ]] && qemu_pids+=("$(cat "$f")")
  done
  for q in "${qemu_pids[@]}"; do kill -KILL "$q" 2>/dev/null || true; done
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 100); do
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.1
  done
  kill -KILL "$pid" 2>/dev/null || true
}

case $cmd in
  start) [[ $# -eq 3 ]] || usage; start "$3" ;;
  stop)
    stop_daemon
    rm -rf "$dir"
    ;;
  *) usage ;;
esac
