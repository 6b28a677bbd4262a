#!/bin/sh
# generate_docs.sh STORBED OUT_DIR CHANGELOG: the man pages (OUT_DIR/man1/*.1.gz) and the bash
# completion (OUT_DIR/storbed) from the built storbed, so they cannot drift from its --help; and
# the package's changelog.gz.
set -eu
storbed=$1 out=$2 changelog=$3
rm -rf "$out"
mkdir -p "$out"
"$storbed" manpage --dir "$out/man1"
gzip -9n "$out"/man1/*.1
"$storbed" completion >"$out/storbed"
gzip -9n <"$changelog" >"$out/changelog.gz"
touch "$out/stamp"
