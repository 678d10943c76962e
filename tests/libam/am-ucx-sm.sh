#!/bin/sh
# The libam tests over the ucx transport with UCX's sm transports only
# (UCX_TLS=sm); exit 77 (skipped) when libam was built without UCX.
UCX_TLS=sm exec "$top_builddir/tests/libam/test_am" ucx
