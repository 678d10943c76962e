#!/bin/sh
# The integration suite with PVMAM_TRANSPORT unset: the default, shm to
# tasks on this host and tcp to the others (every task here is on this
# host, so links are shm; tests/integration/mixed.sh mixes them).
# Afterwards /dev/shm must hold nothing new.
unset PVMAM_TRANSPORT
. "$top_srcdir/tests/lib/devshm.sh"
sh "$top_srcdir/tests/integration/suite.sh"
rc=$?
devshm_check || rc=1
exit $rc
