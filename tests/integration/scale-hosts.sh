#!/bin/sh
# Many tasks on many hosts: 4 namespace hosts
# (tests/lib/netvm.sh) and 256 libpvm3am tasks, 64 per host (pvm_spawn
# spreads them), on demand: scale.c's ring, all-to-all sample and a master
# linked with every child, with the default transports (shm on a host, tcp
# between hosts) and with udp; with SCALE_PAIRS=1 (make check-long) the
# same after every task sent one message to every other (every link opens
# on demand); then the same job after pvmam_init(256) with the default
# transports.  The master's descriptors must stay within
# 1024.  Skipped (77) where namespaces cannot be made.
. "$top_srcdir/tests/lib/netvm.sh"
nvm_start 4 || exit 99
nvm_addhosts || exit 99
B=$top_builddir/tests/integration
N=${SCALE_N:-256}
W=$(mktemp -d "${TMPDIR:-/tmp}/pvmscaleh.XXXXXX")
rc=0
run() {   # transport mode
    tr=$1 mode=$2
    if [ $tr = default ]; then unset PVMAM_TRANSPORT; else export PVMAM_TRANSPORT=$tr; fi
    echo "== PVMAM_TRANSPORT=$tr, $N tasks on 4 hosts, $mode"
    nvm_on 1 sh -c "ulimit -n 1024 && cd '$W' && timeout 300 '$B/scale_am' $N $mode" > "$W/$tr-$mode" 2>&1
    cat "$W/$tr-$mode"
    grep -q "^PASS" "$W/$tr-$mode" || { echo "FAILED: $tr $mode"; rc=1; }
    fd=$(sed -n 's/.*descriptors [0-9]* -> \([0-9]*\),.*/\1/p' "$W/$tr-$mode")
    if [ -z "$fd" ] || [ "$fd" -ge 1024 ]; then echo "FAILED: master descriptors '$fd'"; rc=1; fi
}
run default ondemand
run udp ondemand
# Each of the 32,896 pairs exchanges one message, each within 60 s (a
# program would hang).  When every on-demand link was watched by the
# pvmds per peer (two watches, each passed on to the peer's host, and two
# exit notices back), the pvmds carried that besides the links' CONN,
# SWITCH and READY and the first messages themselves, and a task waited
# up to 160 s for one (pvmam/link.c self_watched, docs/performance.md).
# Not in make check: the rest of that traffic (the mailbox lookups, all
# answered by host 1's pvmd, and the set-up's messages) still made a
# task of host 1 wait up to 42 s for one at a load of 40 (1 to 2 minutes
# for the run); tests/integration/linkwatch.sh checks the watches at 16
# tasks in make check.
if [ "${SCALE_PAIRS:-}" = 1 ]; then
    run default pairs
fi
# pvmam_init(256) must finish within PVMAM_TIMEOUT (30 s).  When every
# task asked its pvmd to watch each of its tcp peers for exit, the pvmd
# passed each remote tid's watch on to that tid's host: about 49,000
# messages between the pvmds queued ahead of the mesh's DONE and GO, and
# the call ran out of time with half the DONEs in (docs/performance.md).
# A tcp link now ends with its connection and one watch per host covers a
# failed host (pvmam/link.c self_watched, tests/integration/hostfail.sh).
run default init
rm -rf "$W"
if [ $rc != 0 ]; then
    for n in 1 2 3 4; do echo "--- pvmd log of host $n"; nvm_log $n | tail -20; done
fi
exit $rc
