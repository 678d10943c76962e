#!/bin/sh
# One task, several transports (tests/integration/mixed.c): the master has
# the default PVMAM_TRANSPORT (shm,tcp), its children each another setting
# or a malformed address list; the link's transport per peer must be the
# expected one on both sides and every message must arrive.
. "$top_srcdir/tests/lib/pvmvm.sh"
unset PVMAM_TRANSPORT
: "${PVMAM_TIMEOUT:=3000}"; export PVMAM_TIMEOUT
vm_start || exit 99
B=$top_builddir/tests/integration
timeout 300 "$B/mixed_am" MASTER
rc=$?
[ $rc = 0 ] || { echo "--- pvmd log"; vm_log | tail -30; }
exit $rc
