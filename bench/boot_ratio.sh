#!/usr/bin/env bash
# Benchmark: storbed's guest boot against a busybox-init boot of the same kernel with the
# same QEMU options, side by side in one run, interleaved (storbed, busybox, storbed, ...)
# so host load drifts hit both alike. Prints every boot, the medians and storbed/busybox
# (issue 13 goal: at most 1.15).
#
# What is timed, both from the moment QEMU is started:
#   storbed  until the agent's hello reply reaches the host (manifest machines.*.boot.hello_s;
#            a manifest without it: boot_s, which also counts `qemu --version`, ~20 ms). A
#            one-job scenario on a null-co virtio-blk disk; the image comes from the cache.
#   busybox  until its /init's marker line appears in the serial console file. The initramfs
#            is busybox-static as /init (a shell script: echo the marker, poweroff -f).
# Both also give the guest's uptime at that point (storbed: hello_s - before_kernel_s;
# busybox: /proc/uptime read just after the marker), whose ratio leaves out the firmware
# and the kernel's decompression.
# The busybox QEMU argv is storbed's own from the manifest (machine, cpu, smp, memory,
# accel, -kernel, -append, virtio-serial port, the null-co virtio-blk disk) with only the
# -initrd and the console/socket/pid paths replaced.
#
#   bench/boot_ratio.sh [BUILD_DIR] [--boots N] [--keep DIR]
set -euo pipefail

build=${1:-build}; shift || true
boots=5 keep=""
while (($#)); do
  case $1 in
    --boots) boots=$2; shift 2 ;;
    --keep) keep=$2; shift 2 ;;
    *) echo "boot_ratio: unknown option $1" >&2; exit 2 ;;
  esac
done
storbed=$build/orchestrator/storbed
agent=$build/guest-agent/storbed-agent
busybox=/bin/busybox
[[ -x $storbed && -x $agent ]] || { echo "boot_ratio: no storbed or agent in $build (build first)" >&2; exit 1; }
[[ -x $busybox ]] && file -L "$busybox" | grep -q 'statically linked' ||
  { echo "boot_ratio: $busybox is not a static busybox (apt-get install busybox-static)" >&2; exit 1; }

work=$(mktemp -d /var/tmp/storbed-boot-ratio-XXXXXX)
cleanup() { if [[ -z $keep ]]; then rm -rf "$work"; else mkdir -p "$keep" && cp -r "$work"/. "$keep"/ && rm -rf "$work"; fi; }
trap cleanup EXIT

cat >"$work/scenario.json" <<'JSON'
{
  "name": "boot-ratio",
  "description": "One virtio-blk guest on a null-co disk and one tiny read: the boot is what is measured.",
  "targets": ["virtio-blk"],
  "machine": {"vcpus": 2, "memory": "512m", "kernel": "host", "accel": "tcg"},
  "disk": {"size": "16m", "driver": "null-co"},
  "jobs": [{"name": "tiny", "pattern": "sequential", "rw": "read", "bs": "4k", "iodepth": 1,
            "ioengine": "psync", "direct": true, "io_size": "64k"}]
}
JSON

# The busybox initramfs: /init prints the marker on the console and powers off at once.
mkdir -p "$work/bb/bin" "$work/bb/dev" "$work/bb/proc"
cp "$busybox" "$work/bb/bin/busybox"
# After the marker (so it costs the timed part nothing) it prints the guest's uptime, a
# clock that starts with the kernel's: the boot inside the guest, without the firmware and
# the kernel's decompression before it, which are the same for both and the noisiest part.
cat >"$work/bb/init" <<'SH'
#!/bin/busybox sh
/bin/busybox echo BOOT-RATIO-BUSYBOX-READY
/bin/busybox mount -t proc proc /proc
read up idle </proc/uptime
/bin/busybox echo BOOT-RATIO-BUSYBOX-UPTIME $up
/bin/busybox poweroff -f
SH
chmod 755 "$work/bb/init"
(cd "$work/bb" && find . -print0 | cpio --null -o -H newc --quiet >"$work/busybox.cpio")

run_storbed() {  # $1 = out dir; prints the seconds from QEMU start to hello and the guest's uptime then
  "$storbed" run "$work/scenario.json" --out "$1" --agent "$agent" \
    --image-cache "$work/images" --quiet >"$1.log" 2>&1 ||
    { echo "boot_ratio: storbed run failed, see $1.log" >&2; tail -20 "$1.log" >&2; exit 1; }
  python3 - "$1/manifest.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
(machine,) = m["machines"].values()
boot = machine.get("boot") or {}
inside = boot["hello_s"] - boot["before_kernel_s"] if "before_kernel_s" in boot else float("nan")
print(boot.get("hello_s", machine["boot_s"]), inside)
PY
}

run_busybox() {  # $1 = storbed manifest to copy the argv from, $2 = dir; prints seconds and uptime
  mkdir -p "$2"
  python3 - "$1" "$2" "$work/busybox.cpio" <<'PY'
import json, os, subprocess, sys, time
manifest, out, cpio = sys.argv[1:]
(machine,) = json.load(open(manifest))["machines"].values()
argv = list(machine["argv"])
paths = {"console": f"{out}/console.log", "agent": f"{out}/agent.sock"}
for i, a in enumerate(argv):
    if argv[i - 1] == "-initrd": argv[i] = cpio
    elif a.startswith("file,id=console,path="): argv[i] = "file,id=console,path=" + paths["console"]
    elif a.startswith("socket,id=agent,path="): argv[i] = a.replace(a.split(",")[2], "path=" + paths["agent"])
    elif a.startswith("unix:") and argv[i - 1] == "-qmp": argv[i] = f"unix:{out}/qmp.sock,server=on,wait=off"
    elif argv[i - 1] == "-pidfile": argv[i] = f"{out}/qemu.pid"
marker = b"BOOT-RATIO-BUSYBOX-READY"
start = time.monotonic()
qemu = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                        stderr=open(f"{out}/qemu.log", "wb"))
seen = None
try:
    while seen is None and time.monotonic() - start < 180:
        try:
            if marker in open(paths["console"], "rb").read(): seen = time.monotonic() - start
        except FileNotFoundError:
            pass
        if seen is None:
            if qemu.poll() is not None: break
            time.sleep(0.005)
    qemu.wait(timeout=60)
finally:
    if qemu.poll() is None: qemu.kill(); qemu.wait()
if seen is None: sys.exit(f"boot_ratio: no busybox marker in {paths['console']}")
uptime = "nan"
for line in open(paths["console"], errors="replace"):
    if "BOOT-RATIO-BUSYBOX-UPTIME" in line: uptime = line.split()[-1]
print(f"{seen:.3f} {uptime}")
PY
}

echo "# boot ratio: $boots boots each, interleaved; storbed = QEMU start to agent hello, busybox = QEMU start to /init's console marker"
echo "# warm-up (builds the guest image into $work/images; not counted)"
run_storbed "$work/warm" >/dev/null
run_busybox "$work/warm/manifest.json" "$work/bb-warm" >/dev/null
echo "# argv: $(python3 -c 'import json,sys; (m,)=json.load(open(sys.argv[1]))["machines"].values(); print(" ".join(m["argv"]))' "$work/warm/manifest.json")"
s=() b=() si=() bi=()
for ((i = 1; i <= boots; i++)); do
  read -r st sti < <(run_storbed "$work/s$i")
  read -r bt bti < <(run_busybox "$work/s$i/manifest.json" "$work/b$i")
  python3 - "$work/s$i/manifest.json" "$i" "$st" "$bt" "$bti" <<'PY'
import json, sys
(m,) = json.load(open(sys.argv[1]))["machines"].values()
boot = m.get("boot") or {}
parts = ", ".join(f"{k[:-2]} {boot[k]:.2f}" for k in ("before_kernel_s", "kernel_to_init_s", "modules_s", "devices_s", "agent_s") if k in boot)
print(f"boot {sys.argv[2]}  storbed {float(sys.argv[3]):.2f} s ({parts or 'no breakdown'})  "
      f"busybox {float(sys.argv[4]):.2f} s (uptime {sys.argv[5]})")
PY
  s+=("$st") b+=("$bt") si+=("$sti") bi+=("$bti")
done
python3 - "${s[*]}" "${b[*]}" "${si[*]}" "${bi[*]}" <<'PY'
import math, statistics, sys
s, b, si, bi = ([float(x) for x in a.split()] for a in sys.argv[1:5])
ms, mb = statistics.median(s), statistics.median(b)
print(f"median storbed {ms:.2f} s (min {min(s):.2f}, max {max(s):.2f}), busybox {mb:.2f} s "
      f"(min {min(b):.2f}, max {max(b):.2f}), storbed/busybox {ms / mb:.3f}")
if not any(math.isnan(x) for x in si + bi):
    msi, mbi = statistics.median(si), statistics.median(bi)
    print(f"inside the guest (uptime: storbed at hello, busybox just after its marker): median "
          f"storbed {msi:.2f} s, busybox {mbi:.2f} s, storbed/busybox {msi / mbi:.3f}")
PY
