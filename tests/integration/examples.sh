#!/bin/sh
# The Debian pvm-examples sources, built against stock libpvm3 and against
# libpvm3am, run in a private VM; their output must be the same once task
# ids and timings are normalised.  Only those are: the computed results
# (master1's sums, timing's sizes and round numbers, spmd's token ring,
# every exit status) are compared as printed, and master1's must match
# what it expected.
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

# Task ids: each distinct one becomes its order of first appearance, so
# that who talks to whom is still compared (a token ring has to close).
# norm: hex ids ("t40001"); norm_dec: decimal ones too (spmd prints them).
tidmap() {
    awk -v re="$1" '{
        out = ""
        while (match($0, re)) {
            id = substr($0, RSTART, RLENGTH)
            if (!(id in seen)) seen[id] = ++n
            out = out substr($0, 1, RSTART - 1) "<tid" seen[id] ">"
            $0 = substr($0, RSTART + RLENGTH)
        }
        print out $0
    }'
}
norm() { tidmap 't[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]+'; }
norm_dec() { norm | tidmap '[0-9][0-9][0-9][0-9][0-9][0-9]+'; }
# master1 prints each worker's result as it arrives: compare them as a set.
norm_sorted() { norm | sort; }
# timing prints times: keep each table row's first column (the round) and
# the other lines (message sizes); a time becomes T, runs of blanks one.
norm_timing() {
    norm | awk '
        after { gsub(/[0-9][0-9.]*/, "T"); after = 0 }
        /^Avg uSec$|^Avg Byte\/uSec$/ { after = 1 }
        /^RTT Avg uSec/ { sub(/[0-9]+ *$/, "T") }
        /^ *[0-9]+( +[0-9]+)+ *$/ { n = $1; gsub(/[0-9]+/, "T"); sub(/T/, n) }
        { gsub(/ +/, " "); print }'
}
# task output reaches the pvmd log as "[tNNN] text": keep the text
logtext() { vm_log | sed -n 's/^\[t[0-9a-f]*\] [0-9/]* [0-9:]* \[t[0-9a-f]*\] //p'; }

rc=0
run_case() {  # name master slave normaliser
    name=$1 master=$2 slave=$3 nf=$4
    for kind in stock am; do
        vm_start || exit 99
        cp "$W/$slave.$kind" "$VM_BIN/$slave"
        ( cd "$W" && timeout 60 "$W/$master.$kind" ) > "$W/out.$name.$kind" 2>&1 </dev/null
        echo "exit $?" >> "$W/out.$name.$kind"
        vm_stop
    done
    $nf < "$W/out.$name.stock" > "$W/n.stock"
    $nf < "$W/out.$name.am" > "$W/n.am"
    if ! diff "$W/n.stock" "$W/n.am"; then
        echo "DIFFERENT: $name"; echo "--- stock"; cat "$W/out.$name.stock"; echo "--- am"; cat "$W/out.$name.am"; rc=1
    else
        echo "same: $name ($(wc -l < "$W/out.$name.am") lines)"
    fi
}
run_case hello hello hello_other norm
run_case master1 master1 slave1 norm_sorted
run_case timing timing timing_slave norm_timing
# master1's workers compute the sums: each must be what it expected
for kind in stock am; do
    got=$(grep -c '^I got \([0-9.]*\) from [0-9]*; (expecting \1)$' "$W/out.master1.$kind")
    [ "$got" = 3 ] || { echo "master1 ($kind): $got of 3 results as expected"; rc=1; }
done

# spmd: four copies find each other with pvm_siblings and pass a token
for kind in stock am; do
    vm_start || exit 99
    cp "$W/spmd.$kind" "$VM_BIN/spmd"
    timeout 90 "$W/launch" 4 spmd; echo "launch exit $?" > "$W/spmd.$kind"
    sleep 0.5
    logtext >> "$W/spmd.$kind"
    vm_stop
done
norm_dec < "$W/spmd.stock" > "$W/n.stock"
norm_dec < "$W/spmd.am" > "$W/n.am"
if diff "$W/n.stock" "$W/n.am" && grep -q 'launch exit 0' "$W/spmd.am" && \
   grep -q '^<tid1> -> <tid2> -> <tid3> -> <tid4> -> <tid1> *$' "$W/n.am"; then
    echo "same: spmd ($(wc -l < "$W/spmd.am") lines)"
else
    echo "DIFFERENT: spmd"; echo "--- stock"; cat "$W/spmd.stock"; echo "--- am"; cat "$W/spmd.am"; rc=1
fi
# every case must have produced real output
for f in "$W"/out.*.*; do
    [ "$(wc -l < "$f")" -ge 3 ] || { echo "too little output in $f"; rc=1; }
done
exit $rc
