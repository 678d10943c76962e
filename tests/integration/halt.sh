#!/bin/sh
# pvm_halt as stock: the master (tests/integration/halt.c) calls pvm_halt
# while the pvmd writes its children's output to it.  With stock libpvm3
# the pvmd ends the caller (SIGTERM, exit 143) and the call never returns;
# ours must do the same on every route, and the halt must never be lost:
# the pvmd and every child are gone within a bound.  ROUNDS per build and
# transport (default 3): the lost halt needed the caller to leave at the
# wrong moment.
. "$top_srcdir/tests/lib/pvmvm.sh"
B=$top_builddir/tests/integration
W=$(mktemp -d "${TMPDIR:-/tmp}/pvmhalt.XXXXXX")
vm_cleanup() { rm -rf "$W"; }
ROUNDS=${ROUNDS:-3}

# gone PID: not running (a zombie no one reaps counts as gone)
gone() {
    st=$(ps -o stat= -p "$1" 2>/dev/null) || return 0
    case $st in Z*) return 0 ;; esac
    return 1
}

# wait_gone SECONDS PID...: 0 once every PID is gone
wait_gone() {
    n=$(($1 * 10)); shift
    while [ $n -gt 0 ]; do
        left=0
        for p in "$@"; do gone "$p" || left=1; done
        [ $left = 0 ] && return 0
        sleep 0.1; n=$((n - 1))
    done
    return 1
}

rc=0; runs=0
for build in stock am; do
    for tr in off shm tcp udp default; do
        [ $build = stock ] && [ $tr != off ] && continue
        r=0
        while [ $r -lt "$ROUNDS" ]; do
            r=$((r + 1)); runs=$((runs + 1))
            vm_start || exit 99
            cp "$B/halt_$build" "$VM_BIN/"
            case $tr in default) unset PVMAM_TRANSPORT ;; *) PVMAM_TRANSPORT=$tr; export PVMAM_TRANSPORT ;; esac
            timeout 60 "$VM_BIN/halt_$build" "halt_$build" > /dev/null 2> "$W/err"
            st=$?
            pids=$(sed -n 's/^child pid //p' "$W/err")
            what="$build/$tr round $r"
            if grep -q '^pvm_halt returned' "$W/err" || [ $st != 143 ]; then
                echo "FAILED: $what: the caller exited with $st (stock: 143, ended by the pvmd)"
                cat "$W/err"; rc=1
            fi
            if ! wait_gone 10 "$VM_PID" $pids; then
                echo "FAILED: $what: the halt was lost (pvmd or a child still running 10 s later)"
                vm_log | tail -20; rc=1
                for p in $pids; do gone "$p" || kill -KILL "$p" 2>/dev/null; done
            fi
            vm_stop
        done
    done
done
unset PVMAM_TRANSPORT
[ $rc = 0 ] && echo "halt: $runs runs, each caller ended by the pvmd and the VM gone"
exit $rc
