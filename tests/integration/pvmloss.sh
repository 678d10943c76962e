#!/bin/sh
# PVM messages over AM/udp with real packet loss: the whole VM runs in a new
# network namespace whose loopback drops 10% of UDP packets (nftables).
# Skipped (exit 77) where namespaces or nftables are not available.
if [ "$1" != inside ]; then
    command -v unshare >/dev/null && command -v nft >/dev/null && command -v ip >/dev/null ||
        { echo "SKIP: unshare, ip or nft missing"; exit 77; }
    unshare -n true 2>/dev/null || { echo "SKIP: cannot create a network namespace"; exit 77; }
    exec timeout 280 unshare -n sh "$0" inside
fi
ip link set lo up || exit 99
nft add table inet pvmamloss &&
    nft add chain inet pvmamloss in '{ type filter hook input priority 0; }' &&
    nft add rule inet pvmamloss in meta l4proto udp numgen random mod 10 0 counter drop ||
    { echo "SKIP: nftables rule refused"; exit 77; }
. "$top_srcdir/tests/lib/pvmvm.sh"
vm_start || exit 99
PVMAM_TRANSPORT=udp; export PVMAM_TRANSPORT
"$top_builddir/tests/integration/pvmloss_am" MASTER 10000
rc=$?
nft list table inet pvmamloss | grep -o 'packets [0-9]* bytes [0-9]* drop' | sed 's/^/dropped by nftables: /'
[ $rc = 0 ] || { echo "--- pvmd log"; vm_log | tail -20; }
exit $rc
