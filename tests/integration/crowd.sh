#!/bin/sh
# More tasks than cores (crowd.c): 8 tasks on this machine's cores
# exchange all-to-all, reduce and barrier over every transport, and with
# every PVMAM_WAIT policy over tcp; idle waiting tasks must use no CPU.
# Each run is bounded (the program's alarm and timeout).  A bad PVMAM_WAIT
# gets one clear line and the task runs on over the daemon.
. "$top_srcdir/tests/lib/pvmvm.sh"
vm_start || exit 99
P=$top_builddir/tests/integration/crowd_am
export PVM_EXPORT=PVMAM_TRANSPORT:PVMAM_WAIT
rc=0
run() {   # transport wait
    echo "== PVMAM_TRANSPORT=$1 PVMAM_WAIT=${2:-default}"
    if [ -n "$2" ]; then w="PVMAM_WAIT=$2"; else w=; fi
    env PVMAM_TRANSPORT=$1 $w timeout 150 "$P" MASTER "${CROWD_TASKS:-8}" "${CROWD_ROUNDS:-30}" ||
        { echo "FAIL: $1 ${2:-default}"; rc=1; }
}
for t in ${CROWD_TRANSPORTS:-off tcp udp shm}; do
    run "$t" ""
done
for w in yield spin block idle adapt auto; do
    run tcp "$w"
done

echo "== PVMAM_WAIT=sometimes (not a policy)"
out=$(PVMAM_TRANSPORT=tcp PVMAM_WAIT=sometimes timeout 60 "$P" MASTER 2 2 2>&1)
st=$?
echo "$out"
case $out in
*'PVMAM_WAIT="sometimes" is not valid (yield, spin, block, idle, adapt or auto); running without AM'*) ;;
*) echo "FAIL: no clear error for a bad PVMAM_WAIT"; rc=1 ;;
esac
[ $st = 0 ] || { echo "FAIL: the run with a bad PVMAM_WAIT did not complete ($st)"; rc=1; }
[ $rc = 0 ] || { echo "--- pvmd log"; vm_log | tail -30; }
exit $rc
