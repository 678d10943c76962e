#!/bin/sh
# Stock symbols: every object of stock libfpvm3.a, and stock
# libgpvm3.so, link against libpvm3am with nothing undefined; every name
# stock libpvm3.so (and stock libgpvm3.so's pvm_* API) exports is exported
# by libpvm3am, except those tests/integration/symbols.exclude lists; and
# libpvm3am exports nothing else but pvm3.h's and pvmam.h's names.
# No pvmd needed.
L=${PVM_LIBDIR:-/usr/lib/x86_64-linux-gnu}
LIB=$top_builddir/.libs
W=$(mktemp -d "${TMPDIR:-/tmp}/pvmsyms.XXXXXX")
trap 'rm -rf "$W"' EXIT
CC=${CC:-cc}
rc=0
for f in "$L/libfpvm3.a" "$L/libpvm3.so" "$L/libgpvm3.so" "$LIB/libpvm3am.so"; do
    [ -e "$f" ] || { echo "missing $f"; exit 99; }
done

echo 'int main(void) { return 0; }' > "$W/stub.c"
if $CC -o "$W/fpvm" "$W/stub.c" -Wl,--whole-archive "$L/libfpvm3.a" -Wl,--no-whole-archive \
        -L"$LIB" -lpvm3am -Wl,--no-undefined > "$W/fpvm.log" 2>&1; then
    echo "ok: all $(ar t "$L/libfpvm3.a" | wc -l) objects of libfpvm3.a link against libpvm3am"
else
    echo "FAIL: libfpvm3.a objects have undefined symbols with libpvm3am:"
    grep -o "undefined reference to .*" "$W/fpvm.log" | sort -u; rc=1
fi

echo 'int pvm_joingroup(char *); int main(void) { return pvm_joingroup("g") & 0; }' > "$W/g.c"
if $CC -o "$W/gpvm" "$W/g.c" -lgpvm3 -L"$LIB" -lpvm3am -Wl,--no-allow-shlib-undefined \
        > "$W/gpvm.log" 2>&1; then
    echo "ok: stock libgpvm3.so links against libpvm3am with nothing undefined"
else
    echo "FAIL: stock libgpvm3.so has undefined symbols with libpvm3am:"
    grep -o "undefined reference to .*" "$W/gpvm.log" | sort -u; rc=1
fi

nm -D --defined-only "$LIB/libpvm3am.so" | awk '{ print $3 }' | sort -u > "$W/ours"
grep -v '^#' "$top_srcdir/tests/integration/symbols.exclude" | tr ' ' '\n' | sed '/^$/d' \
    | sort -u > "$W/excl"
{ nm -D --defined-only "$L/libpvm3.so" | awk '{ print $3 }'
  nm -D --defined-only "$L/libgpvm3.so" | awk '$3 ~ /^(pvm_|Pvm)/ { print $3 }'; } \
    | sort -u > "$W/stock"
comm -23 "$W/stock" "$W/ours" | comm -23 - "$W/excl" > "$W/missing"
if [ -s "$W/missing" ]; then
    echo "FAIL: stock exports these, libpvm3am does not (and symbols.exclude does not list them):"
    cat "$W/missing"; rc=1
else
    echo "ok: $(wc -l < "$W/stock") stock names: $(comm -12 "$W/stock" "$W/ours" | wc -l) exported, $(comm -12 "$W/stock" "$W/excl" | wc -l) excluded as documented"
fi
# Nothing internal is exported: every name is stock's (above), declared in
# pvm3.h or pvmam.h.
for h in /usr/include/pvm3.h "$top_srcdir/pvmam/pvmam.h"; do
    grep -o '[A-Za-z_][A-Za-z0-9_]*' "$h"
done | sort -u > "$W/declared"
comm -23 "$W/ours" "$W/stock" | comm -23 - "$W/declared" > "$W/extra"
if [ -s "$W/extra" ]; then
    echo "FAIL: libpvm3am exports internal names:"; cat "$W/extra"; rc=1
else
    echo "ok: $(wc -l < "$W/ours") exported names, none internal"
fi
# an exclusion we now export is stale
stale=$(comm -12 "$W/excl" "$W/ours")
[ -z "$stale" ] || { echo "FAIL: symbols.exclude lists names libpvm3am exports: $stale"; rc=1; }
exit $rc
