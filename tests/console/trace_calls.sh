#!/bin/sh
# trace_calls.sh - every call stock PVM 3.4.6 traces, as the stock console
# shows it (trace *, spawn -@ ->): tests/console/trcjob.c built against
# stock libpvm3 + libgpvm3, then against libpvm3am on the daemon route
# (PVMAM_TRANSPORT=off) and each AM transport.  Per event kind the counts
# must be those of stock, and the descriptors (field names and types) the
# same.  The groups go through the real pvmgs.
#
# Events of stock's that legitimately differ are left out of the compare
# (none at present; list them in IGNORE with the reason).
set -u
. "$top_srcdir/tests/lib/pvmvm.sh"
. "$top_srcdir/tests/console/lib.sh"
command -v pvm >/dev/null && command -v stdbuf >/dev/null || { echo "no stock console"; exit 77; }
[ -x "${PVMGS:-/usr/bin/pvmgs}" ] || { echo "no pvmgs"; exit 77; }
cons_test pvmtrc
trcjob_build || exit 99

# run NAME PROGRAM [TRANSPORT]: the console's transcript in $W/NAME.out
run() {
    am_transport "${3:-}"
    vm_start || exit 99
    cp "$2" "$VM_BIN/trcjob"
    ln -s "${PVMGS:-/usr/bin/pvmgs}" "$VM_BIN/pvmgs"
    trace_job "$1" "trcjob" 60
    vm_stop
}

run stock "$W/trcjob.stock"
cons_records stock
n=$(wc -l < "$W/stock.kinds")
echo "stock: $n kinds of events"
[ "$n" -ge 100 ] || fail "stock shows only $n kinds (a console, pvmd or pvmgs problem?)"
for t in off shm tcp udp; do
    run "am-$t" "$W/trcjob.am" "$t"
    cons_records "am-$t"
    echo "am-$t: $(wc -l < "$W/am-$t.kinds") kinds of events"
    vs_stock stock "am-$t"
done
exit $rc
