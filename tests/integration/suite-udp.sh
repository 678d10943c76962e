#!/bin/sh
# The integration suite with PVMAM_TRANSPORT=udp.
PVMAM_TRANSPORT=udp; export PVMAM_TRANSPORT
exec sh "$top_srcdir/tests/integration/suite.sh"
