#!/bin/sh
# The AM fast path: pvmam_init with 2, 4 and 8 tasks, all-to-all traffic,
# proof that the payload bypassed the pvmd, and a peer killed mid-stream.
# Runs under whatever PVMAM_TRANSPORT the suite sets (off checks the reverse).
. "$top_srcdir/tests/lib/pvmvm.sh"
vm_start || exit 99
B=$top_builddir/tests/integration
: "${PVMAM_TIMEOUT:=3000}"; export PVMAM_TIMEOUT
rc=0
for n in 2 4 8; do
    echo "== $n tasks, transport ${PVMAM_TRANSPORT:-default}"
    timeout 120 "$B/ampath_am" MASTER $n "$VM_PID" || rc=1
done
[ $rc = 0 ] || { echo "--- pvmd log"; vm_log | tail -30; }
exit $rc
