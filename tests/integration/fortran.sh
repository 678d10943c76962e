#!/bin/sh
# A Fortran SPMD program: tests/integration/fspmd.f built with
# gfortran and stock libfpvm3 three ways -- stock (-lfpvm3 -lgpvm3 -lpvm3),
# ours (-lfpvm3 -lpvm3am), and stock's group library over ours
# (-lfpvm3 -lgpvm3 -lpvm3am) -- runs 4 instances in a private VM; each
# must PASS and print what stock prints.
. "$top_srcdir/tests/lib/pvmvm.sh"
FC=${FC:-gfortran}
command -v "$FC" > /dev/null || { echo "fortran: $FC not found (scripts/install-deps.sh installs gfortran)"; exit 99; }
W=$(mktemp -d "${TMPDIR:-/tmp}/pvmfortran.XXXXXX")
vm_cleanup() { rm -rf "$W"; }
LIB=$(cd "$top_builddir/.libs" && pwd)
# Fixed form ignores what is past column 72: a truncated line is an error
# (a truncated "info" once printed the unset variable "in"), and fspmd.f
# says "implicit none" for the same reason.  The argument-mismatch
# warnings of the generic pvmfpack/pvmfunpack calls stay in build.$v.
FFLAGS="-std=legacy -fallow-argument-mismatch -Werror=line-truncation -I/usr/include"
AM="-L$LIB -Wl,-rpath,$LIB -lpvm3am"
rc=0
for v in stock am gam; do
    case $v in
        stock) libs="-lgpvm3 -lpvm3" ;;
        am) libs="$AM" ;;
        gam) libs="-lgpvm3 $AM" ;;
    esac
    # shellcheck disable=SC2086
    # LDFLAGS: a sanitizer build's flags, so the program links their runtime first
    $FC $FFLAGS -o "$W/fspmd_$v" "$top_srcdir/tests/integration/fspmd.f" ${LDFLAGS:-} -lfpvm3 $libs \
        > "$W/build.$v" 2>&1 || { echo "FAILED: build $v"; cat "$W/build.$v"; exit 1; }
done
vm_start || exit 99
cp "$W"/fspmd_* "$VM_BIN/"
ln -s "${PVMGS:-/usr/bin/pvmgs}" "$VM_BIN/pvmgs"
for v in stock am gam; do
    timeout 60 "$VM_BIN/fspmd_$v" "fspmd_$v" > "$W/out.$v" 2>&1
    echo "exit $?" >> "$W/out.$v"
    grep -q '^PASS' "$W/out.$v" || { echo "FAILED: $v"; cat "$W/out.$v"; vm_log | tail -20; rc=1; }
done
for v in am gam; do
    diff "$W/out.stock" "$W/out.$v" > /dev/null || { echo "DIFFERENT: stock vs $v";
        diff "$W/out.stock" "$W/out.$v"; rc=1; }
done
cat "$W/out.am"
[ $rc = 0 ] && echo "fortran: stock, ours and stock-libgpvm3-over-ours print the same"
exit $rc
