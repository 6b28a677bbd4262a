#!/bin/sh
# generate_docs.sh STORBED AGENT OUT_DIR CHANGELOG: the man pages (OUT_DIR/man1/*.1.gz) and the
# bash completion (OUT_DIR/storbed) from the built storbed and storbed-agent, so they cannot
# drift from their --help; and the package's changelog.gz.
set -eu
storbed=$1 agent=$2 out=$3 changelog=$4
rm -rf "$out"
mkdir -p "$out"
"$storbed" manpage --dir "$out/man1"
"$agent" --manpage >"$out/man1/storbed-agent.1"
gzip -9n "$out"/man1/*.1
"$storbed" completion >"$out/storbed"
gzip -9n <"$changelog" >"$out/changelog.gz"
touch "$out/stamp"
