#!/bin/sh
# Frozen groups: after pvm_freezegroup, gettid/getinst/gsize
# and bcast answer from the frozen membership, as stock libgpvm3 does.
# frozen.c built against stock (-lgpvm3 -lpvm3) and libpvm3am runs as
# master and as the child that asks, in all four combinations, in one
# private VM; each must PASS and all must print the same.
. "$top_srcdir/tests/lib/pvmvm.sh"
B=$top_builddir/tests/integration
W=$(mktemp -d "${TMPDIR:-/tmp}/pvmfrozen.XXXXXX")
vm_cleanup() { rm -rf "$W"; }
vm_start || exit 99
cp "$B/frozen_stock" "$B/frozen_am" "$VM_BIN/"
ln -s "${PVMGS:-/usr/bin/pvmgs}" "$VM_BIN/pvmgs"
rc=0
for m in stock am; do
    for c in stock am; do
        timeout 60 "$VM_BIN/frozen_$m" "frozen_$c" > "$W/$m.$c" 2>&1
        echo "exit $?" >> "$W/$m.$c"
        if ! grep -q '^PASS' "$W/$m.$c"; then
            echo "FAILED: master $m, child $c"; cat "$W/$m.$c"; rc=1
        fi
    done
done
for f in am.am stock.am am.stock; do
    diff "$W/stock.stock" "$W/$f" > /dev/null || { echo "DIFFERENT: stock.stock vs $f";
        diff "$W/stock.stock" "$W/$f"; rc=1; }
done
cat "$W/am.am"
[ $rc = 0 ] && echo "frozen: 4 master/child combinations pass and print the same"
exit $rc
