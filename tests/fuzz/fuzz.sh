#!/bin/sh
# Run every libFuzzer target for FUZZ_SECONDS each (default 10: a smoke run
# in make check; `make fuzz FUZZ_SECONDS=600` for a long one) from the
# checked-in seed corpus.  New inputs go to a scratch corpus, never into
# the repository.  Fails on any crash, leak or sanitizer report; skipped
# (77) where clang cannot build fuzzers.  Crashing inputs are kept in
# $top_builddir/tests/fuzz/crashes for a regression test.
src=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
bld=${top_builddir:-$src}
out=$bld/tests/fuzz/bin
mkdir -p "$bld/tests/fuzz"
secs=${FUZZ_SECONDS:-10}
sh "$src/tests/fuzz/build.sh" "$src" "$bld" "$out" >"$out.log" 2>&1
rc=$?
[ $rc = 77 ] && { cat "$out.log"; exit 77; }
[ $rc = 0 ] || { cat "$out.log"; echo "FAIL: fuzz targets did not build"; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/pvmamfuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$bld/tests/fuzz/crashes"
rc=0
for t in fuzz_upk fuzz_wire fuzz_am_udp fuzz_am_tcp fuzz_am_shm fuzz_ctrl; do
    mkdir -p "$work/$t"
    timeout $((secs + 60)) "$out/$t" -max_total_time="$secs" -print_final_stats=1 \
        -artifact_prefix="$bld/tests/fuzz/crashes/$t-" "$work/$t" "$src/tests/fuzz/corpus/$t" \
        >"$work/$t.log" 2>&1
    r=$?
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/$t.log")
    if [ $r = 0 ]; then
        echo "fuzz: $t: ${runs:-?} runs in ${secs} s, no crash"
    else
        echo "FAIL: fuzz: $t (exit $r)"
        grep -E "ERROR|SUMMARY|Test unit written" "$work/$t.log" | head -20
        rc=1
    fi
done
exit $rc
