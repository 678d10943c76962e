#!/bin/sh
# The suite's own programs under valgrind's memcheck: the libam Check tests
# on every transport, the pvm3 pack tests, and the ampath master (pvmam_init,
# all-to-all traffic, a peer killed mid-stream) against a real pvmd over udp
# and tcp.  Any memory error or definite leak fails.  Spawned tasks run
# natively: the pvmd starts them, not valgrind.  Skipped (77) without
# valgrind; not built into sanitizer trees (ASan and valgrind exclude each
# other).
command -v valgrind >/dev/null 2>&1 || { echo "valgrind not installed: skipped"; exit 77; }
VG="valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite"
LT="$top_builddir/libtool --mode=execute"
rc=0
run() {
    echo "== $*"
    "$@"
    r=$?
    [ $r = 0 ] || { echo "-- exit $r"; rc=1; }
}
# every Check test in the process valgrind watches
CK_FORK=no; export CK_FORK
# tests/libam/placement.c leaves out its read count, which valgrind upsets
AM_TEST_VALGRIND=1; export AM_TEST_VALGRIND
for t in tcp udp; do
    run $LT $VG "$top_builddir/tests/libam/test_am" $t
done
run $LT $VG "$top_builddir/tests/pvm3/test_pack"

. "$top_srcdir/tests/lib/pvmvm.sh"
vm_start || exit 99
PVMAM_TIMEOUT=3000 PVM_EXPORT=PVMAM_TRANSPORT; export PVMAM_TIMEOUT PVM_EXPORT
for t in udp tcp; do
    PVMAM_TRANSPORT=$t run timeout 240 $VG "$top_builddir/tests/integration/ampath_am" MASTER 4 "$VM_PID"
done
vm_stop
exit $rc
