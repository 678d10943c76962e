#!/bin/sh
# Link set-up under stress (docs/link-setup.md): every shape of
# linkstress.c, ROUNDS rounds each (default 200, 100 under the sanitizers), under each transport, in
# one private VM; the stock build runs every shape first, to show the test
# itself passes with stock PVM.  A round that does not finish in time is a
# hang: the master prints every task's stack.  `make stress` runs more.
. "$top_srcdir/tests/lib/pvmvm.sh"
vm_start || exit 99
B=$top_builddir/tests/integration
# Under the sanitizers a round takes about 5 times as long: 100 rounds
# keep the five transports within the test's time limit (TEST_TIMEOUT).
case " $CFLAGS " in *-fsanitize=*) dr=100 ;; *) dr=200 ;; esac
rounds=${STRESS_ROUNDS:-$dr}
: "${PVMAM_TIMEOUT:=3000}"; export PVMAM_TIMEOUT
rc=0
for s in ring mcast larger exit; do
    "$B/linkstress_stock" MASTER $s 20 || { echo "FAIL: stock $s"; rc=1; }
done
for t in ${STRESS_TRANSPORTS:-tcp udp shm shm,tcp off}; do
    for s in ring mcast larger exit; do
        echo "== PVMAM_TRANSPORT=$t $s"
        PVMAM_TRANSPORT=$t "$B/linkstress_am" MASTER $s "$rounds" || { echo "FAIL: $t $s"; rc=1; }
    done
done
[ $rc = 0 ] || { echo "--- pvmd log"; vm_log | tail -30; }
exit $rc
