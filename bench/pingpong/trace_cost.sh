#!/bin/bash
# What tracing costs while it is off: the pingpong of this build (trace hooks
# compiled in, no tracer) against the same sources built with the hooks
# compiled out (-DPVMI_TRACE_NONE, pvm3/core/trace.h), in one private VM,
# alternated round by round, tasks pinned to cores 0/1 by pingpong itself.
# Prints the median 8-byte half round trip of each build and the ratio.
#   trace_cost.sh [rounds] [transport] [seconds-per-run]
# The copy is built under a temporary folder (about a minute); KEEP=DIR
# keeps it there for a rerun.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/bench.sh"
bench_tag=trace_cost
B=$(bench_dir bench/pingpong)
ROUNDS=${1:-11} TR=${2:-shm} SECS=${3:-1.0}
bench_need pingpong_am
OFF=${KEEP:-$(mktemp -d)}
if [ ! -x "$OFF/bench/pingpong/pingpong_am" ]; then
    say "building the sources without trace hooks in $OFF"
    (cd "$top_srcdir" && git ls-files -z | xargs -0 tar -cf - ) | tar -C "$OFF" -xf - || exit 2
    (cd "$OFF" && autoreconf -fi && ./configure CPPFLAGS=-DPVMI_TRACE_NONE &&
        make -j2 libpvm3am.la bench/pingpong/pingpong_am) > "$OFF/build.log" 2>&1 ||
        { echo "trace_cost.sh: build failed, see $OFF/build.log" >&2; exit 2; }
fi
bench_tmpvm
for r in $(seq "$ROUNDS"); do
    for c in on off; do
        say "round $r/$ROUNDS: hooks $c"
        b=$B/pingpong_am; [ $c = off ] && b=$OFF/bench/pingpong/pingpong_am
        PVMAM_TRANSPORT=$TR timeout 120 "$b" MASTER "$b" 8 "$SECS" 8 | awk -v c=$c '{ print c, $1, $3 }' >> "$OUT/all" || exit 1
    done
done
[ -n "${KEEP:-}" ] || rm -rf "$OFF"
echo "8-byte half round trip over $TR, median of $ROUNDS alternated rounds (us)"
sort -k1,1 -k2,2 -k3,3n "$OUT/all" | awk '
    { k = $1 " " $2; v[k] = v[k] " " $3; n[k]++ }
    END { for (k in v) { split(v[k], a, " "); m[k] = a[int((n[k] + 1) / 2)] }
          split("psend packed", ms, " ")
          for (i = 1; i <= 2; i++) printf "%-7s hooks in, off %.4f   compiled out %.4f   ratio %.4f\n",
              ms[i], m["on " ms[i]], m["off " ms[i]], m["on " ms[i]] / m["off " ms[i]] }'
