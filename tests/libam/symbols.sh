#!/bin/sh
# libam's symbols: libam.so exports exactly the functions libam/am.h
# declares (libam/libam.map), every global name in libam.a is am_* or amx_*,
# and a program linked with the static libam.a still has every transport
# (the generated table references them all, see libam/local.mk).
# No network or pvmd needed.
LIB=$top_builddir/.libs
CC=${CC:-cc}
W=$(mktemp -d "${TMPDIR:-/tmp}/amsyms.XXXXXX")
trap 'rm -rf "$W"' EXIT
rc=0
for f in "$LIB/libam.so" "$LIB/libam.a"; do
    [ -e "$f" ] || { echo "SKIP: $f not built (shared and static libraries needed)"; exit 77; }
done

# The API: function names in am.h, comments and system headers aside.
$CC -E -P "$top_srcdir/libam/am.h" | grep -o '\bam_[a-z0-9_]*[[:space:]]*(' |
    sed 's/[[:space:]]*($//' | sort -u > "$W/api"
nm -D --defined-only "$LIB/libam.so" | awk '{print $3}' | sort -u > "$W/exported"
[ "$(wc -l < "$W/api")" -gt 40 ] || { echo "FAIL: only $(wc -l < "$W/api") names read from am.h"; exit 1; }
if cmp -s "$W/api" "$W/exported"; then
    echo "ok: libam.so exports the $(wc -l < "$W/api") functions of am.h and nothing else"
else
    echo "FAIL: libam.so exports differ from am.h (< am.h only, > exported only):"
    diff "$W/api" "$W/exported" | grep '^[<>]'; rc=1
fi

# (names starting with __ are the compiler's, e.g. ASan's __odr_asan.*)
nm -g --defined-only "$LIB/libam.a" | awk 'NF == 3 {print $3}' | grep -v '^amx\{0,1\}_' |
    grep -v '^__' > "$W/odd"
if [ -s "$W/odd" ]; then
    echo "FAIL: libam.a defines global names outside am_*/amx_*:"; cat "$W/odd"; rc=1
else
    echo "ok: every global name in libam.a is am_* or amx_*"
fi

# UCX is opened when the first ucx interface is made (libam/ucx/dl.h), not
# linked: loading its libraries cost every process, ucx or not, about 1 ms
# of CPU (docs/performance.md, "a profile of the mesh's set-up")
if readelf -d "$LIB/libam.so" | grep -q 'NEEDED.*libuc[pstm]'; then
    echo "FAIL: libam.so loads UCX at start-up:"; readelf -d "$LIB/libam.so" | grep NEEDED; rc=1
else
    echo "ok: libam.so does not load UCX at start-up"
fi

cat > "$W/list.c" <<'C'
#include <stdio.h>
#include "am.h"
int main(void)
{
    for (const char *const *n = am_transports(); *n; n++) {
        am_interface_t *ifc;
        int rc = am_init(*n, NULL, &ifc);
        printf("%s %s\n", *n, rc == AM_OK ? "starts" : am_strerror(rc));
        if (rc == AM_OK)
            am_shutdown(ifc);
    }
    return 0;
}
C
# what libam.a needs besides libc (libam.pc's Libs.private: -ldl, with
# which the ucx transport opens UCX)
extra=$(sed -n 's/^Libs.private: *//p' "$top_builddir/libam/libam.pc")
if ! $CC $CFLAGS -I"$top_srcdir/libam" -o "$W/list" "$W/list.c" "$LIB/libam.a" $extra > "$W/cc.log" 2>&1; then
    echo "FAIL: cannot link against libam.a:"; cat "$W/cc.log"; exit 1
fi
"$W/list" > "$W/static"
# the transports this build has: libam/local.mk's list as generated into
# tr_table.c (ucx only when configure found UCX)
want=$(sed -n 's/^    &amx_tr_\(.*\),$/\1 starts/p' "$top_builddir/libam/tr_table.c")
if [ "$(cat "$W/static")" = "$want" ] && [ -n "$want" ]; then
    echo "ok: statically linked, every transport built (libam/tr_table.c) starts:" $(cut -d' ' -f1 "$W/static")
else
    echo "FAIL: statically linked program has transports:"; cat "$W/static"
    echo "but libam/tr_table.c lists:"; echo "$want"; rc=1
fi
exit $rc
