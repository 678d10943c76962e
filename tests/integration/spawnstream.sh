#!/bin/sh
# Streaming right after pvm_spawn, no pvmam_init: over each
# transport and the default, a libpvm3am master psends 100 x 1 MiB to a libpvm3am child
# it has just spawned; every message must arrive intact and the pvmd may
# carry at most MAX_VIA of them (the first send waits for the link,
# pvmam/settle.c).  A stock child gets the same stream intact, through
# the pvmd.
. "$top_srcdir/tests/lib/pvmvm.sh"
B=$top_builddir/tests/integration
N=100 BYTES=1048576 MAX_VIA=${MAX_VIA:-3}
W=$(mktemp -d "${TMPDIR:-/tmp}/pvmss.XXXXXX")
vm_cleanup() { rm -rf "$W"; }
vm_start || exit 99
cp "$B/spawnstream_am" "$B/spawnstream_stock" "$VM_BIN/"
rc=0
for t in default tcp udp shm; do
    if [ $t = default ]; then unset PVMAM_TRANSPORT; else export PVMAM_TRANSPORT=$t; fi
    timeout 120 "$VM_BIN/spawnstream_am" spawnstream_am $N $BYTES > "$W/$t" 2>&1
    cat "$W/$t"
    via=$(sed -n 's/.*via-pvmd \(-*[0-9]*\) of.*/\1/p' "$W/$t")
    if ! grep -q '^PASS' "$W/$t" || [ -z "$via" ] || [ "$via" -lt 0 ] || [ "$via" -gt $MAX_VIA ]; then
        echo "FAILED over $t (at most $MAX_VIA messages may go through the pvmd)"; rc=1
    fi
done
unset PVMAM_TRANSPORT
timeout 120 "$VM_BIN/spawnstream_am" spawnstream_stock $N $BYTES > "$W/stock" 2>&1
cat "$W/stock"
grep -q "^PASS" "$W/stock" && grep -q "via-pvmd $N of $N" "$W/stock" ||
    { echo "FAILED: stock child (all $N through the pvmd, intact)"; rc=1; }
exit $rc
