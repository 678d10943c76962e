#!/bin/sh
# lib.sh - drive a console (ours or stock pvm) through a FIFO, one command
# at a time: after each command an "echo" marker is sent, and we wait
# (bounded) until the marker is in the output, so a transcript does not
# depend on timing.  Source after tests/lib/pvmvm.sh.
#   cons_start OUTFILE PROGRAM [ARGS]   start it (stdout line-buffered)
#   cons_cmd "LINE"                     send LINE, wait until it was done
#   cons_wait PATTERN [SECONDS]         wait until PATTERN is in the output
#   cons_stop                           end of input; wait for it to leave
# and what the console tests set up alike:
#   cons_test PREFIX     private work directory $W, removed at exit (unless
#                        KEEP), with the console and the VM; fail() sets rc
#   cc_am OUT SRC        build SRC against this tree's libpvm3am
#   examples_am PROG...  unpack $PVM_EXAMPLES into $W, build $W/PROG.am
#   trcjob_build         tests/console/trcjob.c as $W/trcjob.stock (stock
#                        libpvm3, libgpvm3) and $W/trcjob.am
#   am_transport [T]     PVMAM_TRANSPORT=T for what starts next (none: unset)
#   trc_kinds, trc_descs trace records on stdin (no "[T1:tid] " before
#                        them): count per event kind; descriptors, one line
#                        each (event name and its fields)
#   trace_job NAME JOB SECONDS  in the stock console on a started VM: trace
#                        *, spawn -@ -> JOB, wait until it finished, halt
#   cons_records NAME    the trace records the console printed in
#                        $W/NAME.out: $W/NAME.kinds and $W/NAME.descs
#   vs_stock BASE NAME   $W/NAME.kinds and .descs must be those of BASE
CONS_PID=""
CONS_OUT=""
PVM_EXAMPLES=/usr/share/doc/pvm-examples/examples.tar.gz
CONS_N=0

cons_start() {
    CONS_OUT=$1; shift
    CONS_N=0
    rm -f "$W/cons.fifo"
    mkfifo "$W/cons.fifo" || return 1
    # ours line-buffers its own output; stdbuf (an LD_PRELOAD shim, which a
    # sanitizer build of ours refuses) only for the stock console
    case $1 in
    */console/pvmam) "$@" < "$W/cons.fifo" > "$CONS_OUT" 2> "$CONS_OUT.err" & ;;
    *) stdbuf -oL "$@" < "$W/cons.fifo" > "$CONS_OUT" 2> "$CONS_OUT.err" & ;;
    esac
    CONS_PID=$!
    exec 3> "$W/cons.fifo"
}

cons_wait() {
    i=0
    lim=$(( ${2:-20} * 10 ))
    while ! grep -q -- "$1" "$CONS_OUT" 2>/dev/null; do
        i=$((i + 1))
        if [ $i -gt $lim ] || ! kill -0 "$CONS_PID" 2>/dev/null; then
            echo "cons_wait: no \"$1\" in $CONS_OUT after ${2:-20} s" >&2
            return 1
        fi
        sleep 0.1
    done
}

cons_cmd() {
    CONS_N=$((CONS_N + 1))
    printf '%s\necho @@%d\n' "$1" "$CONS_N" >&3
    cons_wait "^@@$CONS_N\$" "${2:-20}"
}

cons_stop() {
    exec 3>&-
    i=0
    while kill -0 "$CONS_PID" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
    if kill -0 "$CONS_PID" 2>/dev/null; then
        echo "cons_stop: console $CONS_PID did not leave at end of input" >&2
        kill "$CONS_PID" 2>/dev/null
        wait "$CONS_PID" 2>/dev/null
        return 1
    fi
    wait "$CONS_PID" 2>/dev/null
    CONS_PID=""
}

cons_test() {
    W=$(mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX") || exit 99
    rc=0
    trap 'vm_atexit' EXIT
}
# what vm_atexit (tests/lib/pvmvm.sh) runs after vm_stop
vm_cleanup() {
    [ -n "$CONS_PID" ] && kill "$CONS_PID" 2>/dev/null
    [ -n "${KEEP:-}" ] || rm -rf "$W"
}
fail() { echo "FAIL: $*"; rc=1; }

cc_am() {
    ${CC:-cc} -w ${CFLAGS:-} -o "$1" "$2" ${LDFLAGS:-} \
        -L"$top_builddir/.libs" -lpvm3am -Wl,-rpath,"$top_builddir/.libs"
}

examples_am() {
    tar xzf "$PVM_EXAMPLES" -C "$W" || return 1
    for p; do cc_am "$W/$p.am" "$W/examples/$p.c" || return 1; done
}

trcjob_build() {
    ${CC:-cc} -w ${CFLAGS:-} -o "$W/trcjob.stock" "$top_srcdir/tests/console/trcjob.c" \
        -lgpvm3 -lpvm3 && cc_am "$W/trcjob.am" "$top_srcdir/tests/console/trcjob.c"
}

am_transport() {
    if [ -n "${1:-}" ]; then PVMAM_TRANSPORT=$1; export PVMAM_TRANSPORT
    else unset PVMAM_TRANSPORT; fi
}

trc_kinds() { sed -n 's/^\("[a-z_0-9]*([0-9.]*)"\) {.*/\1/p' | sort | uniq -c; }
trc_descs() {
    awk '/^#[0-9]+: /  { name = $2; f = ""; on = 1; next }
        on && /^\t[a-z]/ { gsub(/\t/, ""); f = f " " $0; next }
        on && /^};;/  { print name ":" f; on = 0 }' | sort -u
}

trace_job() {
    cons_start "$W/$1.out" pvm || exit 99
    cons_cmd "trace *" || fail "$1: trace"
    cons_cmd "spawn -@ -> $2" || fail "$1: spawn"
    cons_wait "^\[1\] finished" "$3" || fail "$1: the job did not finish"
    printf 'halt\n' >&3
    cons_stop
}

cons_records() {
    sed -n 's/^\[T1:t[0-9a-f]*\] //p' "$W/$1.out" | trc_kinds > "$W/$1.kinds"
    sed 's/^\[T1:t[0-9a-f]*\] //' "$W/$1.out" | trc_descs > "$W/$1.descs"
}

vs_stock() {
    diff "$W/$1.kinds" "$W/$2.kinds" > "$W/$2.kdiff" ||
        { fail "$2: event counts differ from stock (< stock, > ours)"; cat "$W/$2.kdiff"; }
    diff "$W/$1.descs" "$W/$2.descs" > "$W/$2.ddiff" ||
        { fail "$2: descriptors differ from stock"; cat "$W/$2.ddiff"; }
}
