#!/bin/sh
# Two libpvm3am tasks stream big messages at each other at once, each
# sending a whole round before it receives (bistream.c), over every
# transport and the default; every word is checked.  A run that does not
# end in time is a hang (the program's alarm, and timeout).  BISTREAM_N
# messages each way per round (default 1000), BISTREAM_ROUNDS rounds
# (default 4), BISTREAM_TRANSPORTS the transports ("default": unset).
. "$top_srcdir/tests/lib/pvmvm.sh"
unset PVMAM_TRANSPORT   # the pvmd passes its own to spawned tasks: "default" means none
vm_start || exit 99
P=$top_builddir/tests/integration/bistream_am
export PVM_EXPORT=PVMAM_TRANSPORT${PVM_EXPORT:+:$PVM_EXPORT}
rc=0
for t in ${BISTREAM_TRANSPORTS:-shm tcp udp default}; do
    echo "== PVMAM_TRANSPORT=$t"
    if [ "$t" = default ]; then unset PVMAM_TRANSPORT; else PVMAM_TRANSPORT=$t; export PVMAM_TRANSPORT; fi
    timeout 80 "$P" MASTER "${BISTREAM_N:-1000}" "${BISTREAM_ROUNDS:-4}" ||
        { echo "FAIL: $t ($?)"; rc=1; }
done
[ $rc = 0 ] || { echo "--- pvmd log"; vm_log | tail -30; }
exit $rc
