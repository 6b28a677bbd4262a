#!/usr/bin/env bash
# A private sshd for tests that reach libvirt over qemu+ssh://, sharing nothing with the
# system's sshd or /etc/ssh:
#   private-sshd.sh DIR PORT   writes keys and configs into DIR, then runs sshd in the
#                              foreground (-D -e) on 127.0.0.1:PORT until it is killed
# DIR gets:
#   client_key      the key root logs in with (URI param keyfile=DIR/client_key)
#   ssh             an ssh wrapper for libvirt (URI param command=DIR/ssh) that reads
#                   only DIR/ssh_config: host keys are checked against DIR/known_hosts,
#                   so nothing is written to ~/.ssh (no_verify=1 would add the key there)
#   ssh_config      also maps the host name storbed-sshd-remote to 127.0.0.1, for a URI
#                   that storbed does not recognise as this host
# The caller removes DIR. Needs root (sshd, PermitRootLogin) and openssh-server.
set -euo pipefail

[[ $# -eq 2 ]] || { echo "usage: $0 DIR PORT" >&2; exit 2; }
dir=$1 port=$2
alias_name=storbed-sshd-remote

mkdir -p "$dir"
rm -f "$dir"/host_key* "$dir"/client_key*
ssh-keygen -q -t ed25519 -N '' -C storbed-test-host -f "$dir/host_key"
ssh-keygen -q -t ed25519 -N '' -C storbed-test-client -f "$dir/client_key"
cp "$dir/client_key.pub" "$dir/authorized_keys"

cat >"$dir/sshd_config" <<CONF
ListenAddress 127.0.0.1
Port $port
HostKey $dir/host_key
PidFile $dir/sshd.pid
AuthorizedKeysFile $dir/authorized_keys
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
# The scratch dir lives under /var/tmp (sticky, world-writable): StrictModes would refuse it.
StrictModes no
UsePAM no
CONF

echo "[127.0.0.1]:$port,[$alias_name]:$port $(cut -d' ' -f1,2 "$dir/host_key.pub")" \
  >"$dir/known_hosts"
cat >"$dir/ssh_config" <<CONF
Host $alias_name
  HostName 127.0.0.1
Host *
  UserKnownHostsFile $dir/known_hosts
  GlobalKnownHostsFile /dev/null
  StrictHostKeyChecking yes
  IdentitiesOnly yes
CONF
printf '#!/bin/sh\nexec /usr/bin/ssh -F %s/ssh_config "$@"\n' "$dir" >"$dir/ssh"
chmod 0755 "$dir/ssh"

# sshd's privilege separation directory; Debian's service unit would create it.
mkdir -p /run/sshd
exec /usr/sbin/sshd -D -e -f "$dir/sshd_config"
