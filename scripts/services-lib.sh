# Sourced by start-services.sh and with-services.sh.
# A daemon counts as running when a live (not zombie) process has its name.
daemon_running() {
  local pid
  for pid in $(pgrep -x "$1"); do
    [[ $(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null) =~ ^[RSDTtI]$ ]] && return 0
  done
  return 1
}

# Waits up to 5 s for libvirtd's socket.
wait_for_libvirtd() {
  for _ in $(seq 50); do
    [[ -S /run/libvirt/libvirt-sock ]] && return 0
    sleep 0.1
  done
  return 1
}
