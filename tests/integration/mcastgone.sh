#!/bin/sh
# pvm_mcast to a list with a task that has exited: the others still get
# it and pvm_mcast returns 0, as stock's (tests/integration/mcastgone.c),
# over each transport and the default.
. "$top_srcdir/tests/lib/pvmvm.sh"
vm_start || exit 99
cp "$top_builddir/tests/integration/mcastgone_am" "$VM_BIN/"
export PVM_EXPORT=PVMAM_TRANSPORT${PVM_EXPORT:+:$PVM_EXPORT}
rc=0
for t in ${MCASTGONE_TRANSPORTS:-shm tcp udp default}; do
    if [ $t = default ]; then unset PVMAM_TRANSPORT; else PVMAM_TRANSPORT=$t; export PVMAM_TRANSPORT; fi
    echo "== PVMAM_TRANSPORT=$t"
    timeout 90 "$VM_BIN/mcastgone_am" mcastgone_am || { echo "FAILED over $t"; rc=1; }
done
exit $rc
