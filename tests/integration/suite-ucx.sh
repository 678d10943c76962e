#!/bin/sh
# The integration suite with PVMAM_TRANSPORT=ucx (UCX picks its wires:
# UCX_TLS and the other UCX_* settings pass through); skipped (77) when
# libam was built without UCX.
if ! grep -q amx_tr_ucx "$top_builddir/libam/tr_table.c" 2>/dev/null; then
    echo "SKIP: libam transport ucx not built (configure found no UCX)"
    exit 77
fi
PVMAM_TRANSPORT=ucx; export PVMAM_TRANSPORT
exec sh "$top_srcdir/tests/integration/suite.sh"
