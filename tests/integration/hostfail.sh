#!/bin/sh
# Host failure on a VM of 3 namespace hosts (tests/lib/netvm.sh), two
# libpvm3am workers per host, the AM mesh open (hostfail.c): the last host's
# pvmd stopped (SIGTERM) or the whole host crashed (silent, then SIGKILL),
# over tcp and udp, or its cable pulled (udp); over tcp also with links
# opened on demand; then a partition over udp that heals.  Sends to the lost host must fail (PvmNoTask/PvmHostFail) within 2 x PVMAM_TIMEOUT,
# the other hosts lose nothing, and the master's pvm_exit must not wait on
# links to the dead.  Skipped (77) where namespaces cannot be made.
. "$top_srcdir/tests/lib/netvm.sh"
B=$top_builddir/tests/integration
PVMAM_TIMEOUT=2000; export PVMAM_TIMEOUT
rc=0
# scenario TRANSPORT MODE ARGS...: on a fresh VM; %NS% is the last host's
# network namespace, %PVMD% its pvmd's pid, %SW% the bridge's namespace.
scenario() {
    tr=$1 mode=$2; shift 2
    echo "== PVMAM_TRANSPORT=$tr PVMAM_TIMEOUT=$PVMAM_TIMEOUT${HOSTFAIL_ONDEMAND:+ on demand} $mode: $(echo "$1" | head -1 | cut -c1-40)..."
    nvm_start 3 || { rc=1; return; }
    nvm_addhosts || { rc=1; vm_atexit; return; }
    ns=$(nvm_ns 3) pid=$(nvm_pvmd_pid 3) sw=${NVM_TAG}sw
    a=$(echo "$1" | sed "s/%NS%/$ns/g; s/%PVMD%/$pid/g; s/%SW%/$sw/g")
    b=$(echo "$2" | sed "s/%NS%/$ns/g; s/%PVMD%/$pid/g; s/%SW%/$sw/g")
    # the bound: the waits inside are at most 2 x PVMAM_TIMEOUT + 5 s
    PVMAM_TRANSPORT=$tr nvm_on 1 timeout 50 "$B/hostfail_am" MASTER "$mode" "$a" "$b"
    r=$?
    if [ $r != 0 ]; then
        echo "FAILED: $tr $mode (exit $r$([ $r = 124 ] && echo ': killed at the 50 s bound'))"
        rc=1
        for n in 1 2 3; do echo "--- pvmd log of host $n"; nvm_log $n | grep -v NOTIFYACK | tail -15; done
    fi
    vm_atexit
}
drop='printf "table inet f {\n chain i {\n  type filter hook input priority 0;\n  iif != lo drop\n }\n chain o {\n  type filter hook output priority 0;\n  oif != lo drop\n }\n}\n" | ip netns exec %NS% nft -f -'
heal='ip netns exec %NS% nft delete table inet f'
for tr in tcp udp; do
    # stopped: the pvmd tells the others and kills its tasks
    scenario $tr down "kill -TERM %PVMD%" 1
    # crashed: silent first (no RST, no ICMP), then every process killed
    scenario $tr down "$drop && kill -KILL \$(ip netns pids %NS%)" 0
done
# stopped while its tasks live on (2: they ignore the pvmd's SIGTERM):
# their tcp connections stay open, so only the pvmd's PvmHostDelete,
# asked once per host, closes the links to them (pvmam/link.c
# watch_host): sends fail as soon as it comes, not a PVMAM_TIMEOUT later
scenario tcp down "kill -TERM %PVMD%" 2
# the same three over tcp links opened on demand (no pvmam_init): they too
# end with their connections, and one PvmHostDelete watch per host is
# asked from link work (pvmam/link.c set_self_watch)
HOSTFAIL_ONDEMAND=1; export HOSTFAIL_ONDEMAND
scenario tcp down "kill -TERM %PVMD%" 1
scenario tcp down "$drop && kill -KILL \$(ip netns pids %NS%)" 0
scenario tcp down "kill -TERM %PVMD%" 2
unset HOSTFAIL_ONDEMAND
# cable out: pvmd and tasks alive but unreachable
scenario udp down "ip -n %SW% link set p3 down" 0
# stopped, then silent, and the master exits right away: the pvmd said the
# tasks are gone, so pvm_exit must not wait PVMAM_TIMEOUT (60 s here, more
# than the 60 s bound of the run) on links to them
PVMAM_TIMEOUT=60000 scenario udp quick "kill -TERM %PVMD%; sleep 0.2; $drop; sleep 0.3" 0
# a partition shorter than PVMAM_TIMEOUT: libam retransmits through it
PVMAM_TIMEOUT=10000 scenario udp split "$drop" "$heal"
exit $rc
