#!/bin/sh
# trace_cons.sh - our console as the tracer (spawn -@ ->, then spawn
# -@file in the same session) against the stock console doing the same:
# Debian's master1/slave1 and tests/console/trcjob.c, built against stock
# libpvm3 and traced by the stock pvm console, then built against
# libpvm3am and traced by pvmam on the daemon route (PVMAM_TRANSPORT=off)
# and on each AM transport.  Per event kind the counts, and the
# descriptors (field names and types), must be those the stock console
# printed, on the console and in the trace file.  pvmam decodes each
# record with the descriptor its source sent, so a decoder out of step
# shows as a difference too.  The -@file job comes second, so the
# descriptors the pvmd sends only once per tracer are written again from
# what the console kept, as stock's does.
set -u
. "$top_srcdir/tests/lib/pvmvm.sh"
. "$top_srcdir/tests/console/lib.sh"
CONSOLE=$top_builddir/console/pvmam
[ -x /usr/bin/master1 ] && [ -f "$PVM_EXAMPLES" ] || { echo "no pvm-examples"; exit 77; }
command -v pvm >/dev/null && command -v stdbuf >/dev/null || { echo "no stock console"; exit 77; }
[ -x "${PVMGS:-/usr/bin/pvmgs}" ] || { echo "no pvmgs"; exit 77; }
cons_test pvmtrc
examples_am master1 slave1 || exit 99
trcjob_build || exit 99

# run NAME CONSOLE MASTER SLAVE [TRANSPORT]: the transcript in $W/NAME.out,
# the second job's trace file $W/NAME.trc
run() {
    am_transport "${5:-}"
    vm_start || exit 99
    cp "$4" "$VM_BIN/slave1"
    cp "$3" "$VM_BIN/trcjob"
    ln -s "${PVMGS:-/usr/bin/pvmgs}" "$VM_BIN/pvmgs"
    prog=$3
    case $1 in trc*) prog=trcjob ;; esac
    cons_start "$W/$1.out" "$2" || exit 99
    cons_cmd "trace *" || fail "$1: trace"
    cons_cmd "spawn -@ -> $prog" || fail "$1: spawn -@"
    cons_wait '\[1\] finished' 60 || fail "$1: the traced job did not finish"
    cons_cmd "spawn -@$W/$1.trc $prog" || fail "$1: spawn -@file"
    cons_wait '\[3\] finished' 60 || fail "$1: the job traced to a file did not finish"
    printf 'halt\n' >&3
    cons_stop
    vm_stop
}
# Event kinds and counts, descriptors: as trace.sh, from the console's
# "[T1:tid] " lines (a prompt may stand before one) or from the file.
lines() {
    case $2 in
    out) sed -n 's/^\(pvm> \)*\[T1:t[0-9a-f]*\] //p' "$W/$1.out" ;;
    trc) cat "$W/$1.trc" ;;
    esac
}
kinds() { lines "$1" "$2" | trc_kinds > "$W/$1.$2.kinds"; }
descs() { lines "$1" "$2" | trc_descs > "$W/$1.$2.descs"; }
compare() {  # BASE NAME
    for w in out trc; do
        kinds "$2" $w
        descs "$2" $w
        vs_stock "$1.$w" "$2.$w"
    done
    echo "$2: $(wc -l < "$W/$2.out.kinds") kinds on the console, $(wc -l < "$W/$2.trc.kinds") in the file"
}

for job in master1 trcjob; do
    case $job in
    master1) sm=/usr/bin/master1 ss=/usr/bin/slave1 am=$W/master1.am as=$W/slave1.am min=30 ;;
    trcjob) sm=$W/trcjob.stock ss=/usr/bin/slave1 am=$W/trcjob.am as=$W/slave1.am min=100 ;;
    esac
    base=$job-stock
    run "$base" pvm "$sm" "$ss"
    for w in out trc; do kinds "$base" $w; descs "$base" $w; done
    for w in out trc; do
        n=$(wc -l < "$W/$base.$w.kinds")
        [ "$n" -ge $min ] || fail "$base ($w): the stock console shows only $n kinds"
    done
    echo "$base: $(wc -l < "$W/$base.out.kinds") kinds on the console, $(wc -l < "$W/$base.trc.kinds") in the file"
    for t in off shm tcp udp; do
        run "$job-am-$t" "$CONSOLE" "$am" "$as" "$t"
        compare "$base" "$job-am-$t"
    done
done
exit $rc
