#!/bin/sh
# Services: notify, hosts, contexts, mailbox, message handlers, mixed
# stock/libpvm3am groups over the real pvmgs, bad input, catchout.  The
# master of each kind runs every check in a private VM (helpers of both
# kinds); both must pass and print the same.  A third run starts pvmgs
# from a master of ours when the pvmd's exec path has no pvmgs.
. "$top_srcdir/tests/lib/pvmvm.sh"
B=$top_builddir/tests/integration
W=$(mktemp -d "${TMPDIR:-/tmp}/pvmsvc.XXXXXX")
vm_cleanup() { rm -rf "$W"; }
GS=${PVMGS:-/usr/bin/pvmgs}
[ -x "$GS" ] || GS=/usr/bin/pvmgs
norm() { sed -e 's/t[0-9a-f]\{5,8\}/tX/g'; }
rc=0
run() {  # kind with-pvmgs-in-path
    vm_start || exit 99
    cp "$B/svc_stock" "$B/svc_am" "$VM_BIN/"
    [ "$2" = yes ] && ln -s "$GS" "$VM_BIN/pvmgs"
    timeout 120 "$B/svc_$1" > "$W/out.$1.$2" 2>&1
    echo "exit $?" >> "$W/out.$1.$2"
    grep -q '^PASS' "$W/out.$1.$2" || { echo "FAILED: master $1 (pvmgs in path: $2)";
        cat "$W/out.$1.$2"; vm_log | tail -20; rc=1; }
    vm_stop
}
run stock yes
run am yes
run am no
for f in am.yes am.no; do
    if ! norm < "$W/out.stock.yes" | diff - "$(norm < "$W/out.$f" > "$W/n"; echo "$W/n")"; then
        echo "DIFFERENT: stock vs $f"; rc=1
    fi
done
[ $rc = 0 ] && echo "svc: stock and am masters pass $(grep -c '^ok' "$W/out.am.yes") checks each, same output"
exit $rc
