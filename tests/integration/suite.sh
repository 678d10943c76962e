#!/bin/sh
# The integration suite under one PVMAM_TRANSPORT (set by the caller):
# every test script runs with its own private VM.
#
# A sub-script that skips (exit 77, e.g. a missing Debian package) is not
# a pass: it is printed as a SKIP line and in the summary.  The suite
# fails if any sub-script failed, skips (77) only if every one skipped,
# and passes otherwise, naming what it skipped.
pass=0 skip=0 fail=0 skipped= failed=
for t in interop badinput examples ampath svc examples-svc frozen collrand stocknames fortran; do
    echo "######## $t (PVMAM_TRANSPORT=$PVMAM_TRANSPORT)"
    sh "$top_srcdir/tests/integration/$t.sh"
    r=$?
    echo "######## $t: exit $r"
    case $r in
    0) pass=$((pass + 1)) ;;
    77) skip=$((skip + 1)); skipped="$skipped $t"; echo "SKIP: $t" ;;
    *) fail=$((fail + 1)); failed="$failed $t"; echo "FAIL: $t" ;;
    esac
done
echo "suite (PVMAM_TRANSPORT=$PVMAM_TRANSPORT): $pass passed, $skip skipped${skipped:+ (}${skipped# }${skipped:+)}, $fail failed${failed:+ (}${failed# }${failed:+)}"
[ $fail = 0 ] || exit 1
[ $pass = 0 ] && [ $skip -gt 0 ] && exit 77
exit 0
