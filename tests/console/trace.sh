#!/bin/sh
# trace.sh - a traced job seen by the stock console (trace *, spawn -@ ->):
# Debian's master1/slave1 linked against stock libpvm3, then against
# libpvm3am on the daemon route (PVMAM_TRANSPORT=off) and on each AM
# transport.  Per event kind ("send(0.0)", "send(1.1)", ...) the counts
# must be those of stock, and the descriptors the console printed (field
# names and types) the same.  The console only decodes what it parsed, so
# a record out of step with its descriptor shows as a difference too.
# Then (unless TRACE_TOOLS=no; skipped when pvm-dev's tracer or trcsort
# is missing): stock's tracer, registered with the pvmd, writes the trace
# file of the stock-linked and of the libpvm3am job (daemon route and
# shm): the same kinds, counts and descriptors; and trcsort must do with
# ours what it does with stock's file.  (Debian's trcsort 3.4.6 rejects
# every file with more than a few records, stock's own too: it reopens its
# temporary file with O_EXCL.  Then the check says so and compares only
# that both are treated alike.)
set -u
. "$top_srcdir/tests/lib/pvmvm.sh"
. "$top_srcdir/tests/console/lib.sh"
[ -x /usr/bin/master1 ] && [ -f "$PVM_EXAMPLES" ] || { echo "no pvm-examples"; exit 77; }
command -v pvm >/dev/null && command -v stdbuf >/dev/null || { echo "no stock console"; exit 77; }
cons_test pvmtrc
examples_am master1 slave1 || exit 99

# run NAME MASTER SLAVE [TRANSPORT]: the console's transcript in $W/NAME.out
run() {
    am_transport "${4:-}"
    vm_start || exit 99
    cp "$3" "$VM_BIN/slave1"
    trace_job "$1" "$2" 30
    vm_stop
}

run stock /usr/bin/master1 /usr/bin/slave1
cons_records stock
n=$(wc -l < "$W/stock.kinds")
echo "stock: $n kinds of events"
[ "$n" -ge 30 ] || fail "stock shows only $n kinds (a console or pvmd problem?)"
for t in off shm tcp udp; do
    run "am-$t" "$W/master1.am" "$W/slave1.am" "$t"
    cons_records "am-$t"
    echo "am-$t: $(wc -l < "$W/am-$t.kinds") kinds of events"
    vs_stock stock "am-$t"
done

# ---- stock tracer and trcsort --------------------------------------------
# trc NAME MASTER SLAVE [TRANSPORT]: tracer's file in $W/NAME.trc
trc() {
    am_transport "${4:-}"
    vm_start || exit 99
    cp "$3" "$VM_BIN/slave1"
    rm -f "$W/tin"; mkfifo "$W/tin"
    (cd "$W" && exec timeout 60 tracer -T "$W/$1.trc" < "$W/tin" > "$W/$1.tracer" 2>&1) &
    tp=$!
    exec 4> "$W/tin"
    i=0
    while ! grep -q "^Tracer connected" "$W/$1.tracer" 2>/dev/null && [ $i -lt 100 ]; do
        sleep 0.1; i=$((i + 1)); done
    grep -q "^Tracer connected" "$W/$1.tracer" || fail "$1: tracer did not connect"
    cons_start "$W/$1.out" pvm || exit 99
    cons_cmd "spawn -> $2" || fail "$1: spawn"
    cons_wait '\[1\] finished' 30 || fail "$1: the job did not finish"
    # the tracer has it all when every task it saw has its endtask (10 s at most)
    i=0
    while [ $i -lt 100 ]; do
        nt=$(grep -c '^"newtask(' "$W/$1.trc" 2>/dev/null) et=$(grep -c '^"endtask(' "$W/$1.trc" 2>/dev/null)
        [ "${nt:-0}" -gt 0 ] && [ "$nt" = "$et" ] && break
        sleep 0.1; i=$((i + 1))
    done
    printf 'quit\n' >&4
    exec 4>&-
    wait $tp
    printf 'halt\n' >&3
    cons_stop
    vm_stop
}
tkinds() {  # NAME: from the tracer's file, $W/NAME.kinds and .descs
    trc_kinds < "$W/$1.trc" > "$W/$1.kinds"
    trc_descs < "$W/$1.trc" > "$W/$1.descs"
}
sorted() {  # NAME: trcsort's exit status, and the record kinds it wrote
    (cd "$W" && rm -rf tmpsort.* && timeout 30 trcsort "$1.trc" > "$1.sorted" 2> "$1.serr")
    echo $? > "$W/$1.src"
    trc_kinds < "$W/$1.sorted" >> "$W/$1.src"
}
if [ "${TRACE_TOOLS:-yes}" = no ]; then
    echo "tracer/trcsort: skipped (TRACE_TOOLS=no)"
elif ! command -v tracer >/dev/null || ! command -v trcsort >/dev/null || ! command -v timeout >/dev/null; then
    echo "tracer/trcsort: skipped, no pvm-dev tracer/trcsort (or timeout) installed"
else
    trc tstock /usr/bin/master1 /usr/bin/slave1
    tkinds tstock
    n=$(wc -l < "$W/tstock.kinds")
    [ "$n" -ge 10 ] || fail "tracer: stock's trace file has only $n kinds"
    sorted tstock
    for t in off shm; do
        trc "tam-$t" "$W/master1.am" "$W/slave1.am" "$t"
        tkinds "tam-$t"
        vs_stock tstock "tam-$t"
        sorted "tam-$t"
        diff "$W/tstock.src" "$W/tam-$t.src" ||
            fail "trcsort, am-$t: treats our trace file otherwise than stock's (< stock)"
        echo "tracer, am-$t: $(wc -l < "$W/tam-$t.kinds") kinds, as stock"
    done
    if [ "$(head -1 "$W/tstock.src")" = 0 ]; then
        echo "trcsort: accepts stock's and our trace files alike"
    else
        echo "trcsort: rejects stock's own trace file too (exit $(head -1 "$W/tstock.src"): $(grep . "$W/tstock.serr" | head -1)); ours are treated the same"
    fi
fi
exit $rc
