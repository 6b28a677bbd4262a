#!/usr/bin/env bash
# The Debian package, installed as a user would: cpack builds storbed_<version>_amd64.deb from
# BUILD_DIR, lintian finds no error in it, `apt-get install ./storbed_*.deb` installs it into a
# fresh Debian 12 root made by mmdebstrap (never onto this machine), and inside that root (a
# chroot with /dev, /proc and /sys bound) storbed --version, storbed scenario explain, man and
# bash completion work and a bare-metal storbed run of a bundled scenario gives its table.
# `apt-get purge` then leaves no file of the package behind.
#
#   tests/package/package_test.sh BUILD_DIR
set -euo pipefail

build=$(realpath "${1:?usage: package_test.sh BUILD_DIR}")
for tool in cpack lintian mmdebstrap chroot; do
  command -v "$tool" >/dev/null || { echo "package_test: $tool not found" >&2; exit 2; }
done
[[ $(id -u) -eq 0 ]] || { echo "package_test: needs root (mmdebstrap, chroot, mounts)" >&2; exit 2; }

# mmdebstrap's hooks need fds 0-9 free (see scripts/make-debian-image.sh).
for fd in /proc/$$/fd/*; do
  fd=${fd##*/}
  ((fd > 2 && fd != 255)) && eval "exec $fd>&-" 2>/dev/null
done

work=$(mktemp -d /var/tmp/storbed-package-test-XXXXXX)
root=$work/root
mounted=()
cleanup() {
  local i
  for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do umount -l "${mounted[i]}" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "package_test: FAILED: $*" >&2; exit 1; }
step() { echo "package_test: $*"; }

step "cpack"
(cd "$build" && cpack -G DEB -B "$work/deb" >"$work/cpack.log" 2>&1) || { cat "$work/cpack.log"; fail "cpack"; }
deb=$(ls "$work"/deb/storbed_*_amd64.deb)
step "lintian $(basename "$deb")"
lintian --fail-on error "$deb" 2>&1 | grep -v 'running with root privileges' || true
lintian --fail-on error "$deb" >/dev/null 2>&1 || fail "lintian reports errors"

step "mmdebstrap a fresh Debian 12 root"
start=$(date +%s)
mmdebstrap --quiet --variant=apt bookworm "$root" >"$work/mmdebstrap.log" 2>&1 ||
  { cat "$work/mmdebstrap.log"; fail "mmdebstrap"; }
step "root made in $(($(date +%s) - start)) s"
for m in dev proc sys; do
  mount --rbind "/$m" "$root/$m"
  mount --make-rslave "$root/$m"
  mounted+=("$root/$m")
done
cp /etc/resolv.conf "$root/etc/resolv.conf"
in_root() { chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 "$@"; }
in_root dpkg-query -W storbed >/dev/null 2>&1 && fail "the fresh root already has storbed"

step "apt-get install ./$(basename "$deb") (Depends only)"
cp "$deb" "$root/tmp/"
start=$(date +%s)
# mmdebstrap leaves no package lists in the root: fetch them from its sources (this host's).
in_root apt-get update -q >"$work/update.log" 2>&1 || { cat "$work/update.log"; fail "apt-get update in the root"; }
in_root apt-get install -y -q --no-install-recommends "/tmp/$(basename "$deb")" >"$work/install.log" 2>&1 ||
  { tail -30 "$work/install.log"; fail "apt-get install"; }
step "installed in $(($(date +%s) - start)) s"

version=$(in_root storbed --version) || fail "storbed --version"
[[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+\ \(.+\)$ ]] || fail "storbed --version printed '$version'"
step "storbed --version: $version"
in_root storbed scenario explain job.iodepth | grep -q '^job.iodepth' || fail "storbed scenario explain job.iodepth"
[[ -f $root/usr/share/man/man1/storbed-run.1.gz ]] || fail "no man page storbed-run(1)"
[[ -f $root/usr/share/man/man1/storbed-agent.1.gz ]] || fail "no man page storbed-agent(1)"
[[ -d $root/var/cache/storbed ]] || fail "the package does not own /var/cache/storbed"
got=$(in_root bash -c 'source /usr/share/bash-completion/completions/storbed
  COMP_WORDS=(storbed co); COMP_CWORD=1; _storbed; echo "${COMPREPLY[*]}"')
[[ $got == compare ]] || fail "bash completion of 'storbed co' gave '$got'"

step "storbed run of the bundled depth-bare-metal.json (bare metal)"
scenario=/usr/share/storbed/scenarios/depth-bare-metal.json
[[ -f $root$scenario ]] || fail "no $scenario"
# A shorter run of the same scenario: runtime 1 s per job.
in_root sh -c "sed 's/\"runtime\": 5/\"runtime\": 1/g' $scenario > /tmp/short.json"
in_root storbed run /tmp/short.json --out /tmp/results >"$work/run.log" 2>&1 ||
  { tail -30 "$work/run.log"; fail "storbed run"; }
grep -q 'L0 app' "$work/run.log" || { tail -30 "$work/run.log"; fail "no depth table in the run's output"; }
[[ -s $root/tmp/results/results.json ]] || fail "no results.json"
grep -E '^(L0|L3)' "$work/run.log" | head -4 | sed 's/^/  /'

step "apt-get purge storbed"
in_root dpkg -L storbed >"$work/files"
in_root apt-get purge -y -q storbed >"$work/purge.log" 2>&1 || { cat "$work/purge.log"; fail "apt-get purge"; }
left=()
while read -r f; do
  [[ -e $root$f && ! -d $root$f ]] && left+=("$f")
done <"$work/files"
for d in /usr/share/storbed /usr/share/doc/storbed /var/cache/storbed; do
  [[ -e $root$d ]] && left+=("$d")
done
((${#left[@]} == 0)) || fail "left behind after purge: ${left[*]}"
step "nothing of the package left after purge ($(wc -l <"$work/files") paths checked)"
echo "package_test: passed"
