#!/bin/sh
# Stock libpvm3's other names and its stderr warnings:
# stocknames.c built against stock (-lpvm3) and libpvm3am prints its
# variables before/after connecting, option changes, the helpers' results,
# the logging calls, and then calls pvm_exit while a child whose output
# it catches still runs -- once with PvmShowTids on (stock warns "child
# task(s) still running.  waiting..." on stderr) and once off (silent).
# stdout+stderr of both builds must be the same, tids and pids aside.
. "$top_srcdir/tests/lib/pvmvm.sh"
B=$top_builddir/tests/integration
W=$(mktemp -d "${TMPDIR:-/tmp}/pvmnames.XXXXXX")
vm_cleanup() { rm -rf "$W"; }
vm_start || exit 99
cp "$B/stocknames_stock" "$B/stocknames_am" "$VM_BIN/"
norm() { sed -e 's/t[0-9a-f]\{5,8\}/tX/g' -e 's/pid[0-9][0-9]*/pidN/g'; }
rc=0
for mode in tids quiet; do
    for k in stock am; do
        timeout 60 "$VM_BIN/stocknames_$k" "stocknames_$k" $mode 2>&1 | norm > "$W/$k.$mode"
        grep -q '^DONE' "$W/$k.$mode" || { echo "FAILED: $k $mode"; cat "$W/$k.$mode"; rc=1; }
    done
    diff "$W/stock.$mode" "$W/am.$mode" > /dev/null || { echo "DIFFERENT: stock vs am ($mode)";
        diff "$W/stock.$mode" "$W/am.$mode"; rc=1; }
done
w='libpvm \[tX\]: child task(s) still running.  waiting...'
grep -q "^$w" "$W/am.tids" || { echo "FAILED: no pvm_exit warning with PvmShowTids on"; rc=1; }
grep -q "still running" "$W/am.quiet" && { echo "FAILED: pvm_exit warned with PvmShowTids off"; rc=1; }
cat "$W/am.tids"
[ $rc = 0 ] && echo "stocknames: stock and am print the same, with and without PvmShowTids"
exit $rc
