#!/bin/sh
# tests/integration/programs.mk is what programs.sh makes of programs.list
# now: automake builds the test programs from the committed file, so an
# edit to the list that was not followed by make programs-mk would go
# unbuilt.  Also checks that a malformed list is refused.
set -u
d=$top_srcdir/tests/integration
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
sh "$d/programs.sh" "$d/programs.list" > "$tmp/now" || { echo "FAIL: programs.sh failed"; exit 1; }
if ! cmp -s "$tmp/now" "$d/programs.mk"; then
    echo "FAIL: tests/integration/programs.mk is stale; make programs-mk. Difference:"
    diff "$d/programs.mk" "$tmp/now"
    exit 1
fi
echo "ok: programs.mk is up to date ($(grep -c '^check_PROGRAMS' "$d/programs.mk") lines of programs)"
printf 'x | stock am | |\n' > "$tmp/short.list"
printf 'x | stock ours | | |\n' > "$tmp/build.list"
for l in short build; do
    if sh "$d/programs.sh" "$tmp/$l.list" > /dev/null 2>"$tmp/err"; then
        echo "FAIL: programs.sh took a malformed list ($l)"; exit 1
    fi
    echo "ok: malformed list refused: $(cat "$tmp/err")"
done
