# shellcheck shell=bash
# Sourced by the bench scripts that read the host around each run, so they count alike.

# The disk FILE lives on (a partition's own line, if it is one), as /proc/diskstats names
# it; empty on tmpfs, which has none.
disk_of() { lsblk -no KNAME "$(df --output=source "$1" | tail -1)" 2>/dev/null | head -1 || true; }

# The host's steal so far, all CPUs, in ms: the time this VM's vCPUs were ready to run
# while the host ran something else.
steal_ms() { awk -v hz="$(getconf CLK_TCK)" '$1 == "cpu" { printf "%d\n", $9 * 1000 / hz }' /proc/stat; }
