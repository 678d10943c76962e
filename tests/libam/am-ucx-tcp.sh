#!/bin/sh
# The libam tests over the ucx transport with UCX's tcp transports only
# (UCX_TLS=tcp); exit 77 (skipped) when libam was built without UCX.
UCX_TLS=tcp exec "$top_builddir/tests/libam/test_am" ucx
