#!/bin/sh
# Interop: the same master/slave source built against stock libpvm3 and
# against libpvm3am, run in every combination in a private real VM.
# Each master spawns one slave of each kind, so every run also mixes kinds.
. "$top_srcdir/tests/lib/pvmvm.sh"
vm_start || exit 99
B=$top_builddir/tests/integration
rc=0
for m in stock am; do
    for s in stock am; do
        other=am; [ $s = am ] && other=stock
        echo "== master $m, slaves $s + $other"
        if ! timeout 240 "$B/interop_$m" MASTER "$B/interop_$s" "$B/interop_$other"; then
            echo "FAILED: master $m, slaves $s + $other"
            rc=1
        fi
    done
done
[ $rc = 0 ] || { echo "--- pvmd log"; vm_log | tail -20; }
exit $rc
