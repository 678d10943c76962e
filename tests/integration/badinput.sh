#!/bin/sh
# Bad input against the real daemon; each case is bounded and must end in
# the expected PVM error code (see badinput.c).  Run for both libraries:
# the stock build shows the expectations are stock behaviour.
set -u
PVM_ALLOW_ROOT=1; export PVM_ALLOW_ROOT
B=$top_builddir/tests/integration
rc=0
for lib in stock am; do
    E=$(mktemp -d)   # no pvmd here
    out=$(PVM_TMP=$E timeout 20 "$B/badinput_$lib" nopvmd 2>&1) || { echo "FAIL nopvmd ($lib): $out"; rc=1; }
    echo "$lib nopvmd: $out"
    rmdir "$E"
done
. "$top_srcdir/tests/lib/pvmvm.sh"
# pvm_start_pvmd in an empty PVM_TMP: the daemon it starts is halted by the
# program; kill it by its pid file if anything went wrong.
for lib in stock am; do
    E=$(mktemp -d)
    out=$(PVM_TMP=$E timeout 30 "$B/badinput_$lib" startpvmd 2>&1) || { echo "FAIL startpvmd ($lib): $out"; rc=1; }
    echo "$lib startpvmd: $out"
    sleep 0.3
    for p in $(pgrep -x pvmd); do
        tr '\0' '\n' < /proc/$p/environ 2>/dev/null | grep -qx "PVM_TMP=$E" && kill -KILL "$p"
    done
    rm -rf "$E"
done
for lib in stock am; do
    for mode in garbage params halt; do
        [ "$lib.$mode" = stock.garbage ] && continue  # stock drops the sender's socket on garbage
        vm_start || exit 99
        if out=$(timeout 60 "$B/badinput_$lib" $mode 2>&1); then
            echo "$lib $mode: ok: $out"
        else
            echo "FAIL $lib $mode: $out"; vm_log | tail -5; rc=1
        fi
        vm_stop
    done
done
exit $rc
