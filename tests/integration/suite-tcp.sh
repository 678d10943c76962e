#!/bin/sh
# The integration suite with PVMAM_TRANSPORT=tcp.
PVMAM_TRANSPORT=tcp; export PVMAM_TRANSPORT
exec sh "$top_srcdir/tests/integration/suite.sh"
