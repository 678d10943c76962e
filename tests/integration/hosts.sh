#!/bin/sh
# A virtual machine of 3 hosts (network namespaces, real pvmds started by
# pvm_addhosts through PVM_RSH; tests/lib/netvm.sh) with 3 workers per host:
# the all-to-all job of hosts.c over tcp and udp with libpvm3am and stock
# masters (libpvm3am and stock workers alternate on every host, every
# message checksummed, a group with members on every host, every message
# between two libpvm3am workers over AM), then the interop sample.
# Skipped (77) where namespaces cannot be made.
# Every host also has a decoy interface listed before its real one: tasks
# must publish the address their host's name resolves to.
. "$top_srcdir/tests/lib/netvm.sh"
NVM_DECOY=1
nvm_start 3 || exit 99
nvm_addhosts || exit 99
ln -s "${PVMGS:-/usr/bin/pvmgs}" "$VM_BIN/pvmgs"
B=$top_builddir/tests/integration
rc=0
run() {
    echo "== PVMAM_TRANSPORT=${PVMAM_TRANSPORT:-default} $*"
    nvm_on 1 timeout 120 "$@" || { echo "FAILED: $*"; rc=1; }
}
# the default (shm for peers on the same host, tcp for the others), then
# tcp and udp alone
for tr in default tcp udp; do
    if [ $tr = default ]; then unset PVMAM_TRANSPORT; else export PVMAM_TRANSPORT=$tr; fi
    run "$B/hosts_am" MASTER 3 10 "$B/hosts_am" "$B/hosts_stock"
done
unset PVMAM_TRANSPORT
run "$B/hosts_stock" MASTER 3 10 "$B/hosts_stock" "$B/hosts_am"
# The parallel FFT with 6 slaves over the 3 hosts, default transports:
# every slave streams big messages to local peers over shm and to remote
# ones over tcp at once (a send waiting on one interface must serve the
# other: pvmam/am_route.c, serve_others; without it this run hangs).
run "$top_builddir/examples/fft/fft_am" -n 1152 -s 6 -w 0 -r 1 -T 60
for m in am stock; do
    other=stock; [ $m = stock ] && other=am
    run "$B/interop_$m" MASTER "$B/interop_$m" "$B/interop_$other"
done
if [ $rc != 0 ]; then
    for n in 1 2 3; do echo "--- pvmd log of host $n"; nvm_log $n | tail -30; done
fi
exit $rc
