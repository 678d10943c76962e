#!/bin/sh
# Print one closing line for the whole suite from automake's test-suite.log:
# "tests: N passed, N failed, N skipped". Failed logs are shown above it.
log=${1:-test-suite.log}
[ -f "$log" ] || { echo "tests: 0 passed, 1 failed (no $log)"; exit 0; }
val() { sed -n "s/^# $1: *//p" "$log" | head -n 1; }
pass=$(val PASS); fail=$(val FAIL); skip=$(val SKIP); xfail=$(val XFAIL); xpass=$(val XPASS); err=$(val ERROR)
nf=$(( ${fail:-0} + ${err:-0} + ${xpass:-0} ))
if [ "$nf" -gt 0 ]; then
    echo "---- failed test logs ----"
    sed -n '/^FAIL:\|^ERROR:\|^XPASS:/,$p' "$log" | head -n 300
fi
echo "tests: $(( ${pass:-0} + ${xfail:-0} )) passed, $nf failed, ${skip:-0} skipped"
