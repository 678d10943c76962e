#!/bin/sh
# Many tasks on many hosts: 4 namespace hosts
# (tests/lib/netvm.sh) and 256 libpvm3am tasks, 64 per host (pvm_spawn
# spreads them), on demand: scale.c's ring, all-to-all sample and a master
# linked with every child, with the default transports (shm on a host, tcp
# between hosts) and with udp.  The master's descriptors must stay within
# 1024.  Skipped (77) where namespaces cannot be made.
. "$top_srcdir/tests/lib/netvm.sh"
nvm_start 4 || exit 99
nvm_addhosts || exit 99
B=$top_builddir/tests/integration
N=${SCALE_N:-256}
W=$(mktemp -d "${TMPDIR:-/tmp}/pvmscaleh.XXXXXX")
rc=0
for tr in default udp; do
    if [ $tr = default ]; then unset PVMAM_TRANSPORT; else export PVMAM_TRANSPORT=$tr; fi
    echo "== PVMAM_TRANSPORT=$tr, $N tasks on 4 hosts"
    nvm_on 1 sh -c "ulimit -n 1024 && cd '$W' && timeout 300 '$B/scale_am' $N ondemand" > "$W/$tr" 2>&1
    cat "$W/$tr"
    grep -q "^PASS" "$W/$tr" || { echo "FAILED: $tr"; rc=1; }
    fd=$(sed -n 's/.*descriptors [0-9]* -> \([0-9]*\),.*/\1/p' "$W/$tr")
    if [ -z "$fd" ] || [ "$fd" -ge 1024 ]; then echo "FAILED: master descriptors '$fd'"; rc=1; fi
done
rm -rf "$W"
if [ $rc != 0 ]; then
    for n in 1 2 3 4; do echo "--- pvmd log of host $n"; nvm_log $n | tail -20; done
fi
exit $rc
