#!/bin/sh
# trace.sh - a traced job seen by the stock console (trace *, spawn -@ ->):
# Debian's master1/slave1 linked against stock libpvm3, then against
# libpvm3am on the daemon route (PVMAM_TRANSPORT=off) and on each AM
# transport.  Per event kind ("send(0.0)", "send(1.1)", ...) the counts
# must be those of stock, and the descriptors the console printed (field
# names and types) the same.  The console only decodes what it parsed, so
# a record out of step with its descriptor shows as a difference too.
# With TRACE_TOOLS, also: stock tracer writes the libpvm3am job's trace
# file and trcsort accepts it.
set -u
. "$top_srcdir/tests/lib/pvmvm.sh"
. "$top_srcdir/tests/console/lib.sh"
tarball=/usr/share/doc/pvm-examples/examples.tar.gz
[ -x /usr/bin/master1 ] && [ -f "$tarball" ] || { echo "no pvm-examples"; exit 77; }
command -v pvm >/dev/null && command -v stdbuf >/dev/null || { echo "no stock console"; exit 77; }
W=$(mktemp -d "${TMPDIR:-/tmp}/pvmtrc.XXXXXX")
vm_cleanup() {
    [ -n "$CONS_PID" ] && kill "$CONS_PID" 2>/dev/null
    [ -n "${KEEP:-}" ] || rm -rf "$W"
}
trap 'vm_stop; vm_cleanup' EXIT
rc=0
fail() { echo "FAIL: $*"; rc=1; }
tar xzf "$tarball" -C "$W" || exit 99
for p in master1 slave1; do
    ${CC:-cc} -w ${CFLAGS:-} -o "$W/$p.am" "$W/examples/$p.c" ${LDFLAGS:-} \
        -L"$top_builddir/.libs" -lpvm3am -Wl,-rpath,"$top_builddir/.libs" || exit 99
done

# run NAME MASTER SLAVE [TRANSPORT]: the console's transcript in $W/NAME.out
run() {
    if [ -n "${4:-}" ]; then PVMAM_TRANSPORT=$4; export PVMAM_TRANSPORT
    else unset PVMAM_TRANSPORT; fi
    vm_start || exit 99
    cp "$3" "$VM_BIN/slave1"
    cons_start "$W/$1.out" pvm || exit 99
    cons_cmd "trace *" || fail "$1: trace"
    cons_cmd "spawn -@ -> $2" || fail "$1: spawn"
    cons_wait "^\[1\] finished" 30 || fail "$1: the job did not finish"
    printf 'halt\n' >&3
    cons_stop
    vm_stop
}
# Event kinds and counts: records as the console prints them.
kinds() {
    sed -n 's/^\[T1:t[0-9a-f]*\] \("[a-z_0-9]*([0-9.]*)"\) {.*/\1/p' "$W/$1.out" |
        sort | uniq -c > "$W/$1.kinds"
}
# Descriptors: event name and its fields, one line each.
descs() {
    sed 's/^\[T1:t[0-9a-f]*\] //' "$W/$1.out" | awk '
        /^#[0-9]+: /  { name = $2; f = ""; on = 1; next }
        on && /^\t[a-z]/ { gsub(/\t/, ""); f = f " " $0; next }
        on && /^};;/  { print name ":" f; on = 0 }' | sort -u > "$W/$1.descs"
}

run stock /usr/bin/master1 /usr/bin/slave1
kinds stock
descs stock
n=$(wc -l < "$W/stock.kinds")
echo "stock: $n kinds of events"
[ "$n" -ge 30 ] || fail "stock shows only $n kinds (a console or pvmd problem?)"
for t in off shm tcp udp; do
    run "am-$t" "$W/master1.am" "$W/slave1.am" "$t"
    kinds "am-$t"
    descs "am-$t"
    echo "am-$t: $(wc -l < "$W/am-$t.kinds") kinds of events"
    diff "$W/stock.kinds" "$W/am-$t.kinds" > "$W/am-$t.kdiff" ||
        { fail "am-$t: event counts differ from stock (< stock, > ours)"; cat "$W/am-$t.kdiff"; }
    diff "$W/stock.descs" "$W/am-$t.descs" > "$W/am-$t.ddiff" ||
        { fail "am-$t: descriptors differ from stock"; cat "$W/am-$t.ddiff"; }
done
exit $rc
