#!/bin/sh
# What the pvmds carry for links opened on demand: 2 namespace hosts
# (tests/lib/netvm.sh), 16 libpvm3am tasks, 8 per host, every task sends
# one message to every other (scale.c pairs).  Host 1's pvmd logs its
# messages (debug mask 2), and the watches it passes on to host 2
# (DM_NOTIFY) are counted.  A task watched each peer of each link through
# its pvmd, and the pvmd passes a remote tid's watch on to that tid's
# host: 64 links between the hosts, 64 DM_NOTIFY from host 1 (and as many
# exit notices back).  At 256 tasks on 4 hosts that traffic, queued with
# the links' set-up and the first messages, made a task wait up to 160 s
# for one message (docs/performance.md).  shm and tcp links end with
# their connection and one PvmHostDelete watch per remote host, which
# the pvmd keeps itself (pvmam/link.c self_watched): fewer DM_NOTIFY than
# half the links (the master's own watches of the children it spawned
# there, 8, remain).  udp keeps its watch per peer: that run shows the log
# does see them.  Skipped (77) where namespaces cannot be made.
. "$top_srcdir/tests/lib/netvm.sh"
B=$top_builddir/tests/integration
N=16 LINKS=64
W=$(mktemp -d "${TMPDIR:-/tmp}/pvmlinkw.XXXXXX")
rc=0
run() {   # transport: host 1's DM_NOTIFY count into $W/transport.n
    if [ $1 = default ]; then unset PVMAM_TRANSPORT; else PVMAM_TRANSPORT=$1; export PVMAM_TRANSPORT; fi
    nvm_start 2 -d2 || exit 99
    nvm_addhosts || exit 99
    nvm_on 1 sh -c "cd '$W' && timeout 120 '$B/scale_am' $N pairs" > "$W/$1.out" 2>&1
    grep -q "^PASS" "$W/$1.out" || { cat "$W/$1.out" >&2; echo "FAILED: $1: the job" >&2; rc=1; }
    vm_log | grep -c "sendmessage() dst t[0-9a-f]* ctx 0 tag DM_NOTIFY len" > "$W/$1.n"
    vm_atexit
}
run default
d=$(cat "$W/default.n")
echo "PVMAM_TRANSPORT unset (shm,tcp): host 1's pvmd passed on $d exit watches for $LINKS links between the hosts"
run udp
u=$(cat "$W/udp.n")
echo "PVMAM_TRANSPORT=udp: host 1's pvmd passed on $u exit watches"
if [ "$u" -lt $LINKS ]; then
    echo "FAILED: udp links are watched per peer, but the log shows $u watches (< $LINKS): it cannot see them"
    rc=1
fi
if [ "$d" -ge $((LINKS / 2)) ]; then
    echo "FAILED: shm,tcp: $d watches passed between the pvmds (at least $((LINKS / 2))): the links are watched per peer"
    rc=1
fi
rm -rf "$W"
exit $rc
