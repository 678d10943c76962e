#!/bin/sh
# The integration suite with PVMAM_TRANSPORT=off.
PVMAM_TRANSPORT=off; export PVMAM_TRANSPORT
exec sh "$top_srcdir/tests/integration/suite.sh"
