#!/bin/sh
# man.sh - the manual pages in man/: each renders with groff without a
# warning (-ww) and through man -l, mandoc -T lint finds nothing (where
# mandoc is installed), every page is installed (man/local.mk), and the
# pages cover what they document: every function pvmam/pvmam.h declares
# has a page, every console command of console/cmdtab.c is in pvmam(1),
# and every PVMAM_* setting pvmam/config.c reads is in libpvm3am(7).
set -u
src=${top_srcdir:-.}
M=$src/man
fail=0
bad() { echo "FAIL: $*"; fail=1; }
command -v groff >/dev/null 2>&1 || { echo "SKIP: no groff"; exit 77; }
pages=$(ls "$M"/*.[1-8] 2>/dev/null)
[ -n "$pages" ] || { echo "FAIL: no pages in $M"; exit 1; }
for p in $pages; do
    n=$(basename "$p")
    out=$(groff -man -ww -z "$p" 2>&1)
    [ -z "$out" ] || bad "$n: groff: $out"
    if command -v man >/dev/null 2>&1; then
        text=$(MANWIDTH=80 man -l "$p" 2>&1 >/dev/null)
        [ -z "$text" ] || bad "$n: man -l: $text"
        MANWIDTH=80 man -l "$p" 2>/dev/null | grep -q 'NAME' || bad "$n: man -l shows no NAME"
    fi
    if command -v mandoc >/dev/null 2>&1; then
        out=$(mandoc -T lint -W all "$p" 2>&1)
        [ -z "$out" ] || bad "$n: mandoc: $out"
    else
        echo "note: no mandoc, lint skipped for $n"
    fi
    grep -q "man/$n" "$M/local.mk" || bad "$n: not in man/local.mk (not installed)"
done
# every function of pvmam.h has a page
for f in $(sed -n 's/^[a-z].*[ *]\(pvmam_[a-z_]*\)(.*/\1/p' "$src/pvmam/pvmam.h"); do
    [ -f "$M/$f.3" ] || bad "pvmam.h declares $f, no man/$f.3"
done
# every console command is in pvmam(1)
for c in $(sed -n 's/^ *{ "\([a-z]*\)", cmd_.*/\1/p' "$src/console/cmdtab.c"); do
    grep -q "^\.B[RI]* $c\( \|$\)\|^\.B[RI]* $c ,\|\.B $c \\\\fR" "$M/pvmam.1" ||
        bad "console command $c not in pvmam.1"
done
# every PVMAM_* setting the library reads is in libpvm3am(7)
for v in $(grep -o '"PVMAM_[A-Z]*"' "$src/pvmam/config.c" | tr -d '"' | sort -u); do
    grep -q "^\.B $v\$" "$M/libpvm3am.7" || bad "$v not described in libpvm3am.7"
done
[ $fail = 0 ] && echo "PASS: $(echo "$pages" | wc -l) pages"
exit $fail
