#!/bin/sh
# The integration suite with PVMAM_TRANSPORT unset: the default, shm to
# tasks on this host and tcp to the others (every task here is on this
# host, so links are shm; tests/integration/mixed.sh mixes them).
# Afterwards /dev/shm must hold exactly what it held before.
unset PVMAM_TRANSPORT
before=$(ls -A /dev/shm 2>/dev/null | sort)
sh "$top_srcdir/tests/integration/suite.sh"
rc=$?
after=$(ls -A /dev/shm 2>/dev/null | sort)
if [ "$before" != "$after" ]; then
    echo "FAIL: /dev/shm changed during the suite"
    echo "before: $before"; echo "after: $after"
    rc=1
else
    echo "ok: /dev/shm unchanged"
fi
exit $rc
