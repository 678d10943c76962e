#!/bin/sh
# The integration suite with PVMAM_TRANSPORT=shm; afterwards /dev/shm must
# hold nothing new (the transport makes no files at all).
PVMAM_TRANSPORT=shm; export PVMAM_TRANSPORT
. "$top_srcdir/tests/lib/devshm.sh"
sh "$top_srcdir/tests/integration/suite.sh"
rc=$?
devshm_check || rc=1
exit $rc
