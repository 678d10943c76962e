#!/bin/sh
# A result sent right before pvm_exit must arrive (tests/integration/exitloss.c):
# over each transport and the default, EXITLOSS_ROUNDS rounds (default 400,
# about 2 s per transport) of 2 children that print ~250 KB to a catchout master,
# send 10,000 doubles and exit at once.  Every result is checked; a lost one
# fails after EXITLOSS_WAIT seconds (default 10), never hangs.  Then a
# sender killed mid-message must be got over well before PVMAM_TIMEOUT
# (10 s here).  Then EXITLOSS_FANIN rounds (default 40) of the torture
# test's fan-in shape: 9 children answer a multicast job, print ~150 KB,
# send 80,000 bytes (PvmDataDefault and PvmDataInPlace) and exit at once.
# More rounds:
#   EXITLOSS_ROUNDS=2000 EXITLOSS_FANIN=200 make check TESTS=tests/integration/exitloss.sh
. "$top_srcdir/tests/lib/pvmvm.sh"
B=$top_builddir/tests/integration
: "${PVMAM_TIMEOUT:=10000}"; export PVMAM_TIMEOUT
ROUNDS=${EXITLOSS_ROUNDS:-400} WAIT=${EXITLOSS_WAIT:-10} FANIN=${EXITLOSS_FANIN:-40}
vm_start || exit 99
cp "$B/exitloss_am" "$VM_BIN/"
rc=0
for t in ${EXITLOSS_TRANSPORTS:-shm tcp udp default}; do
    if [ $t = default ]; then unset PVMAM_TRANSPORT; else export PVMAM_TRANSPORT=$t; fi
    echo "== PVMAM_TRANSPORT=$t"
    timeout $((ROUNDS + FANIN * 2 + 120)) "$VM_BIN/exitloss_am" exitloss_am $ROUNDS $WAIT $FANIN ||
        { echo "FAILED over $t"; rc=1; }
done
exit $rc
