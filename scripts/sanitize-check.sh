#!/bin/sh
# The whole test suite again, built with ASan + UBSan (configure
# --enable-sanitizers), in a scratch copy of the tracked sources so the
# main build tree is left alone.  Called by `scripts/quickstart.sh check`
# (so CI runs it); SANITIZE=0 there skips it.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
dir=$(mktemp -d "${TMPDIR:-/tmp}/pvmam-san.XXXXXX")
trap 'rm -rf "$dir"' EXIT
if [ -d "$top/.git" ] && command -v git >/dev/null 2>&1; then
    (cd "$top" && git ls-files -z | xargs -0 cp --parents -t "$dir")
else
    cp -r "$top/." "$dir"
fi
cd "$dir"
echo "sanitize-check: building in $dir"
autoreconf -fi >/dev/null 2>&1
./configure -q --enable-sanitizers
make -j"$(nproc)" >/dev/null
rc=0
make -j1 check || rc=$?
echo "sanitizers (ASan + UBSan):"
sh scripts/test-summary.sh
exit $rc
