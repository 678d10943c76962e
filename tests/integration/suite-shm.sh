#!/bin/sh
# The integration suite with PVMAM_TRANSPORT=shm; afterwards /dev/shm must
# hold exactly what it held before (the transport makes no files at all).
PVMAM_TRANSPORT=shm; export PVMAM_TRANSPORT
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
