#!/bin/sh
# preload.sh - unmodified stock binaries of Debian pvm-examples on
# libpvm3am through LD_PRELOAD (pvmam-run, and the console's spawn -!),
# alone and mixed with relinked tasks, in private VMs:
#  1. timing + timing_slave, both stock binaries, preloaded (the slave
#     through PVM_EXPORT): same output as plain stock, and the master's
#     messages went over AM (PVMAM_VERBOSE totals);
#  2. stock master1 preloaded with slave1 relinked against libpvm3am:
#     same output as all-stock, AM links opened between them;
#  3. the console: spawn -! of the stock slave1; ps marks it as a
#     libpvm3am task and amstat gets its answer.
set -u
. "$top_srcdir/tests/lib/pvmvm.sh"
. "$top_srcdir/tests/console/lib.sh"
[ -x /usr/bin/timing ] && [ -f "$PVM_EXAMPLES" ] || { echo "no pvm-examples"; exit 77; }
command -v stdbuf >/dev/null || { echo "no stdbuf"; exit 77; }
case " ${CFLAGS:-} " in *-fsanitize=*)
    # an instrumented library cannot be preloaded into uninstrumented programs
    echo "SKIP: sanitizer build (ASan must be the first library of a program)"; exit 77 ;;
esac
RUN=$top_builddir/console/pvmam-run
CONSOLE=$top_builddir/console/pvmam
PVMAM_PRELOAD_LIB=$top_builddir/.libs/libpvm3am.so.0
export PVMAM_PRELOAD_LIB
[ -r "$PVMAM_PRELOAD_LIB" ] || { echo "no $PVMAM_PRELOAD_LIB (shared library not built)"; exit 77; }
cons_test pvmpre
norm() { sed -e 's/t[0-9a-f]\{5,8\}/tX/g' -e 's/[0-9][0-9]*\.[0-9]*/F/g' -e 's/[0-9][0-9]*/N/g' \
             -e 's/  */ /g' -e '/^libpvm3am\[/d'; }
examples_am slave1 || exit 99

# run NAME SLAVE-FILE PRELOAD(yes/no) MASTER
run() {
    vm_start || exit 99
    case $4 in
    */timing) cp "$2" "$VM_BIN/timing_slave" ;;
    */master1) cp "$2" "$VM_BIN/slave1" ;;
    esac
    if [ "$3" = yes ]; then
        ( cd "$W" && PVMAM_VERBOSE=1 PVM_EXPORT=PVMAM_VERBOSE timeout 60 "$RUN" -t udp "$4" ) \
            > "$W/$1.out" 2> "$W/$1.err" < /dev/null
    else
        ( cd "$W" && timeout 60 "$4" ) > "$W/$1.out" 2> "$W/$1.err" < /dev/null
    fi
    echo "exit $?" >> "$W/$1.out"
    vm_stop
}
same() {  # a b
    if norm < "$W/$1.out" > "$W/$1.n" && norm < "$W/$2.out" > "$W/$2.n" &&
       diff "$W/$1.n" "$W/$2.n" > /dev/null && [ "$(wc -l < "$W/$2.out")" -ge 3 ]; then
        echo "same: $1 and $2 ($(wc -l < "$W/$2.out") lines)"
    else
        fail "$1 and $2 differ"; cat "$W/$1.out" "$W/$2.out" "$W/$2.err"
    fi
}
over_am() {  # the master's exit totals: messages sent over AM > 0
    n=$(sed -n 's/.*exit: sent \([0-9]*\) messages over AM.*/\1/p' "$W/$1.err")
    if [ -n "$n" ] && [ "$n" -gt 0 ]; then
        echo "$1: $(grep 'exit:' "$W/$1.err" | sed 's/.*exit: //')"
    else
        fail "$1: no messages over AM"; cat "$W/$1.err"
    fi
}
run timing.stock /usr/bin/timing_slave no /usr/bin/timing
run timing.pre /usr/bin/timing_slave yes /usr/bin/timing
same timing.stock timing.pre
over_am timing.pre
run master1.stock /usr/bin/slave1 no /usr/bin/master1
run master1.mixed "$W/slave1.am" yes /usr/bin/master1
same master1.stock master1.mixed
# master1 sends each slave one message, which goes through the pvmd while
# the link opens: what shows the preloaded master is a libpvm3am task is
# that it opened AM links to the relinked slaves
if grep -q 'connected to t' "$W/master1.mixed.err"; then
    echo "master1.mixed: $(grep -c 'connected to t' "$W/master1.mixed.err") AM links opened"
else
    fail "master1.mixed: the preloaded master opened no AM link"; cat "$W/master1.mixed.err"
fi

# the console: spawn -! starts an unmodified stock binary preloaded
vm_start || exit 99
cp /usr/bin/slave1 "$VM_BIN/slave1"
cons_start "$W/cons.out" "$CONSOLE" || exit 99
cons_cmd "spawn -! slave1"
cons_cmd "spawn /usr/bin/slave1"
cons_cmd "ps -a"
grep -q ' [0-9a-f]*/[a-z,]*,am *slave1' "$W/cons.out" ||
    fail "ps does not mark the preloaded slave1 as libpvm3am"
grep -q ' [0-9a-f]*/[a-z,]* */usr/bin/slave1' "$W/cons.out" ||
    fail "ps marks the plain stock slave1"
cons_cmd "amstat"
grep -q '(slave1) libpvm3am, transport' "$W/cons.out" || fail "amstat: no answer from the preloaded slave1"
grep -q '(/usr/bin/slave1) stock task' "$W/cons.out" || fail "amstat: plain slave1 not shown as stock"
cons_cmd "reset"
cons_stop || fail "console did not leave"
vm_stop
[ $rc = 0 ] || { echo "--- console"; cat "$W/cons.out"; }
exit $rc
