#!/bin/sh
# A stranger (a process that is not a task of the VM, knowing a task's AM
# address but not its secret) sends well-formed AMs and opens tcp
# connections to it, or shm connections to its set-up socket offering a
# segment of its own making (and looks for a way into the task's
# segments), over each transport: nothing is delivered, the drop counters
# show the drops, and the task keeps working with its real peer
# (tests/integration/stranger.c, stranger_raw.c).  Bounded by timeout.
. "$top_srcdir/tests/lib/pvmvm.sh"
vm_start || exit 99
B=$top_builddir/tests/integration
rc=0
for t in tcp udp shm; do
    echo "== PVMAM_TRANSPORT=$t"
    PVMAM_TRANSPORT=$t timeout 120 "$B/stranger_am" MASTER "$B/stranger_raw" ||
        { echo "FAIL: $t"; rc=1; }
done
[ $rc = 0 ] || { echo "--- pvmd log"; vm_log | tail -20; }
exit $rc
