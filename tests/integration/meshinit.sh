#!/bin/sh
# pvmam_init's mesh (tests/integration/meshinit.c, docs/link-setup.md
# "pvmam_init's mesh"), 8 tasks over each transport and the default: every
# pair linked when it returns; pairs with a history through the pvmd keep
# their streams in order; a call that fails half-way (a task killed) falls
# back to the per-link exchange, in order, and the links still open, also
# where acceptors had opened their side already (stop).
. "$top_srcdir/tests/lib/pvmvm.sh"
B=$top_builddir/tests/integration
W=$(mktemp -d "${TMPDIR:-/tmp}/pvmmesh.XXXXXX")
vm_cleanup() { rm -rf "$W"; }
vm_start || exit 99
cp "$B/meshinit_am" "$VM_BIN/"
export PVM_EXPORT=${PVM_EXPORT:+$PVM_EXPORT:}PVMAM_TRANSPORT:PVMAM_TIMEOUT
rc=0
for t in default shm tcp udp; do
    if [ $t = default ]; then unset PVMAM_TRANSPORT; else export PVMAM_TRANSPORT=$t; fi
    # kill D: the victim dies D ms into the master's call, in a different
    # phase of it each time (the survivors' calls wait PVMAM_TIMEOUT for it)
    # (8 tasks mesh in 1-3 ms here: later kills find it done)
    # stop (shm): the victim stops once connected, after the acceptors open
    # (LATE: it sent its DONE first; up to three tries)
    stop=; case $t in default|shm) stop=stop ;; esac
    for m in clean hist "kill 0" "kill 1" "kill 2" "kill 4" $stop; do
        case $m in kill*|stop) export PVMAM_TIMEOUT=3000 ;; *) unset PVMAM_TIMEOUT ;; esac
        for try in 1 2 3; do   # stop: again while the stop came too late
            timeout 120 "$VM_BIN/meshinit_am" 8 $m > "$W/out" 2>&1
            cat "$W/out"
            grep -q "^LATE" "$W/out" || break
        done
        grep -q "^LATE" "$W/out" && { echo "FAILED: $m over $t: never stopped in time"; rc=1; }
        grep -q "^PASS" "$W/out" || { echo "FAILED: $m over $t"; rc=1; }
    done
done
exit $rc
