#!/bin/sh
# A task farm's long life: tests/integration/churn.c under each
# transport, CHURN_CYCLES workers (default 1000) that open an AM link and
# exit, normally or by SIGKILL; the master's descriptors, memory and the
# mailbox must not grow, and no file of ours may be left in PVM_TMP or
# /dev/shm afterwards.
. "$top_srcdir/tests/lib/pvmvm.sh"
vm_start || exit 99
B=$top_builddir/tests/integration
: "${PVMAM_TIMEOUT:=3000}"; export PVMAM_TIMEOUT
case " ${CFLAGS:-} " in *-fsanitize=*)
    CHURN_NO_RSS=1; export CHURN_NO_RSS
    echo "sanitizer build: resident memory is not compared (LeakSanitizer checks leaks)" ;;
esac
. "$top_srcdir/tests/lib/devshm.sh"
rc=0
for t in ${CHURN_TRANSPORTS:-tcp udp shm off}; do
    echo "== PVMAM_TRANSPORT=$t"
    before=$(ls "$PVM_TMP" | wc -l)
    CHURN_COUNTER=$B/churn_stock PVMAM_TRANSPORT=$t timeout 600 "$B/churn_am" MASTER "${CHURN_CYCLES:-1000}" || rc=1
    after=$(ls "$PVM_TMP" | wc -l)
    echo "files in PVM_TMP: $before -> $after"
    [ "$after" -le "$before" ] || { echo "FAIL: files left in PVM_TMP:"; ls -la "$PVM_TMP"; rc=1; }
done
devshm_check || rc=1
exit $rc
