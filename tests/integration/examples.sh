#!/bin/sh
# The Debian pvm-examples sources, built against stock libpvm3 and against
# libpvm3am, run in a private VM; their output must be the same once task
# ids and timings are normalised.
set -u
tarball=/usr/share/doc/pvm-examples/examples.tar.gz
[ -f "$tarball" ] || { echo "no $tarball (package pvm-examples)"; exit 77; }
. "$top_srcdir/tests/lib/pvmvm.sh"
W=$(mktemp -d "${TMPDIR:-/tmp}/pvmex.XXXXXX")
vm_cleanup() { [ -n "${KEEP:-}" ] || rm -rf "$W"; }
trap 'vm_stop; vm_cleanup' EXIT
tar xzf "$tarball" -C "$W" || exit 99
S=$W/examples
CC=${CC:-cc}
AMLIB=$top_builddir/.libs
build() {  # build NAME for both libraries
    $CC -w ${CFLAGS:-} -o "$W/$1.stock" "$S/$1.c" ${LDFLAGS:-} -lpvm3 || return 1
    $CC -w ${CFLAGS:-} -o "$W/$1.am" "$S/$1.c" ${LDFLAGS:-} -L"$AMLIB" -lpvm3am -Wl,-rpath,"$AMLIB" || return 1
}
for p in hello hello_other master1 slave1 spmd timing timing_slave; do
    build $p || { echo "build of $p failed"; exit 99; }
done
$CC -w ${CFLAGS:-} -o "$W/launch" "$top_srcdir/tests/integration/launch.c" ${LDFLAGS:-} -lpvm3 || exit 99

norm() { sed -e 's/t[0-9a-f]\{5,8\}/tX/g' -e 's/[0-9][0-9]*\.[0-9]*/F/g' -e 's/[0-9][0-9]*/N/g' -e 's/  */ /g'; }
# task output reaches the pvmd log as "[tNNN] text": keep the text
logtext() { vm_log | sed -n 's/^\[t[0-9a-f]*\] [0-9/]* [0-9:]* \[t[0-9a-f]*\] //p'; }

rc=0
run_case() {  # name master slave-name slave-kind master-kind
    name=$1 master=$2 slave=$3
    for kind in stock am; do
        vm_start || exit 99
        cp "$W/$slave.$kind" "$VM_BIN/$slave"
        ( cd "$W" && timeout 60 "$W/$master.$kind" ) > "$W/out.$name.$kind" 2>&1 </dev/null
        echo "exit $?" >> "$W/out.$name.$kind"
        vm_stop
    done
    if ! norm < "$W/out.$name.stock" | diff - "$(norm < "$W/out.$name.am" > "$W/n.am"; echo "$W/n.am")" >/dev/null; then
        echo "DIFFERENT: $name"; echo "--- stock"; cat "$W/out.$name.stock"; echo "--- am"; cat "$W/out.$name.am"; rc=1
    else
        echo "same: $name ($(wc -l < "$W/out.$name.am") lines)"
    fi
}
run_case hello hello hello_other
run_case master1 master1 slave1
run_case timing timing timing_slave

# spmd: four copies find each other with pvm_siblings and pass a token
for kind in stock am; do
    vm_start || exit 99
    cp "$W/spmd.$kind" "$VM_BIN/spmd"
    timeout 90 "$W/launch" 4 spmd; echo "launch exit $?" > "$W/spmd.$kind"
    sleep 0.5
    logtext >> "$W/spmd.$kind"
    vm_stop
done
if norm < "$W/spmd.stock" | diff - "$(norm < "$W/spmd.am" > "$W/n.am"; echo "$W/n.am")" >/dev/null && \
   grep -q 'launch exit 0' "$W/spmd.am" && grep -q 'token' "$W/spmd.am"; then
    echo "same: spmd ($(wc -l < "$W/spmd.am") lines)"
else
    echo "DIFFERENT: spmd"; echo "--- stock"; cat "$W/spmd.stock"; echo "--- am"; cat "$W/spmd.am"; rc=1
fi
# every case must have produced real output
for f in "$W"/out.*.*; do
    [ "$(wc -l < "$f")" -ge 3 ] || { echo "too little output in $f"; rc=1; }
done
exit $rc
