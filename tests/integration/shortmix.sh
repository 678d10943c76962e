#!/bin/sh
# Short messages (one AM with a short header, pvmam/short.c; one 64-byte
# line over shm, libam/shm/short.h) interleaved at random with the general
# path's (pvmam/frag.c), both ways at once, over every transport and the
# default: order and every byte checked (shortmix.c).  The seed is printed;
# SHORTMIX_SEED=S repeats a run, SHORTMIX_N messages each way per round
# (default 500), SHORTMIX_ROUNDS rounds (default 4), SHORTMIX_TRANSPORTS
# the transports ("default": unset; ucx where it is built).
. "$top_srcdir/tests/lib/pvmvm.sh"
unset PVMAM_TRANSPORT
vm_start || exit 99
P=$top_builddir/tests/integration/shortmix_am
export PVM_EXPORT=PVMAM_TRANSPORT${PVM_EXPORT:+:$PVM_EXPORT}
all="shm tcp udp default"
grep -q amx_tr_ucx "$top_builddir/libam/tr_table.c" 2>/dev/null && all="shm tcp udp ucx default"
seed=${SHORTMIX_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
echo "seed $seed (SHORTMIX_SEED=$seed repeats this run)"
rc=0
for t in ${SHORTMIX_TRANSPORTS:-$all}; do
    echo "== PVMAM_TRANSPORT=$t"
    if [ "$t" = default ]; then unset PVMAM_TRANSPORT; else PVMAM_TRANSPORT=$t; export PVMAM_TRANSPORT; fi
    timeout 120 "$P" MASTER "$seed" "${SHORTMIX_N:-500}" "${SHORTMIX_ROUNDS:-4}" ||
        { echo "FAIL: $t ($?), seed $seed"; rc=1; }
done
[ $rc = 0 ] || { echo "--- pvmd log"; vm_log | tail -30; }
exit $rc
