#!/bin/sh
# One entry point for a newcomer and for CI:
#   scripts/quickstart.sh bench   install deps, build, run the MPBench comparison (the main job)
#   scripts/quickstart.sh check   install deps, build, run the whole test suite, then
#                                 again under ASan + UBSan (SANITIZE=0 skips that)
# Extra arguments after the target are passed to make (e.g. BENCH_QUICK=1).
set -eu
target=${1:-check}; [ $# -gt 0 ] && shift
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
sh scripts/install-deps.sh
if [ ! -x configure ] || [ configure.ac -nt configure ]; then
    autoreconf -fi
fi
if [ ! -f Makefile ] || [ configure -nt Makefile ]; then
    ./configure ${CONFIGURE_FLAGS:-}
fi
make -j"$(nproc)"
case "$target" in
check)
    rc=0
    make -j"${CHECK_JOBS:-1}" check "$@" || rc=$?
    sh scripts/test-summary.sh
    # the same suite under ASan + UBSan (SANITIZE=0 skips it)
    if [ "${SANITIZE:-1}" != 0 ]; then
        sh scripts/sanitize-check.sh || rc=1
    fi
    exit $rc ;;
bench) exec make bench-mpbench "$@" ;;
*) exec make "$target" "$@" ;;
esac
