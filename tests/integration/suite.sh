#!/bin/sh
# The integration suite under one PVMAM_TRANSPORT (set by the caller):
# every test script runs with its own private VM.
rc=0
for t in interop badinput examples ampath svc examples-svc frozen stocknames fortran; do
    echo "######## $t (PVMAM_TRANSPORT=$PVMAM_TRANSPORT)"
    sh "$top_srcdir/tests/integration/$t.sh"
    r=$?
    echo "######## $t: exit $r"
    [ $r = 0 ] || [ $r = 77 ] || rc=1
done
exit $rc
