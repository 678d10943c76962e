#!/bin/sh
# run.sh [ROUNDS] [TLS ...] - libam's ucx transport (amucx) against UCX's
# own ucx_perftest (ucp_am_lat 8 B, ucp_am_bw 4 MiB), same UCX_TLS, both
# pinned to cores 0 and 1, the three alternated ROUNDS times (default 3)
# per TLS (default: sm tcp); prints each round and the medians and ratios.
# make builds amucx where configure found UCX (bench/local.mk); make
# bench-ucx runs this from the build folder.
# AMUCX (default $top_builddir/bench/ucxbench/amucx, top_builddir default .),
# LAT_N (100000), BW_N (200) override.
rounds=${1:-3}
[ $# -gt 0 ] && shift
tls=${*:-sm tcp}
AMUCX=${AMUCX:-${top_builddir:-.}/bench/ucxbench/amucx}
LAT_N=${LAT_N:-100000} BW_N=${BW_N:-200}
command -v ucx_perftest > /dev/null || { echo "run.sh: ucx_perftest not found (package ucx-utils)"; exit 77; }
[ -x "$AMUCX" ] || { echo "run.sh: $AMUCX not built (make, with UCX)"; exit 77; }
out=$(mktemp "${TMPDIR:-/tmp}/ucxbench.XXXXXX")
trap 'rm -f "$out" "$out".*' EXIT

# perftest TEST SIZE N: the client's Final line (the server on core 1)
perftest() {
    port=$((20000 + $(od -An -N2 -tu2 /dev/urandom) % 20000))
    taskset -c 1 ucx_perftest -p "$port" > "$out.srv" 2>&1 &
    srv=$!
    sleep 0.5
    taskset -c 0 timeout 120 ucx_perftest -p "$port" 127.0.0.1 -t "$1" -s "$2" -n "$3" 2>&1 | grep '^Final:'
    wait "$srv"
}

med() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

for t in $tls; do
    export UCX_TLS=$t
    : > "$out.$t"
    r=1
    while [ $r -le "$rounds" ]; do
        pl=$(perftest ucp_am_lat 8 "$LAT_N")
        am=$(taskset -c 0,1 timeout 300 "$AMUCX" "$LAT_N" 4194304 "$((BW_N / 2))")
        pb=$(perftest ucp_am_bw 4194304 "$BW_N")
        # perftest Final: iters p50 avg overall bw_avg bw_overall ...
        set -- $(echo "$pl" | awk '{ print $3, $4 }') \
               $(echo "$am" | awk '{ print $6, $9, $14 }') \
               $(echo "$pb" | awk '{ print $6 }')
        echo "$t round $r: lat median us: perftest $1 amucx $3  lat avg us: perftest $2 amucx $4  bw MB/s: perftest $6 amucx $5"
        echo "$1 $2 $3 $4 $5 $6" >> "$out.$t"
        r=$((r + 1))
    done
    for k in 1 2 3 4 5 6; do eval "m$k=\$(cut -d' ' -f$k \"\$out.\$t\" | med)"; done
    awk -v t="$t" -v a="$m1" -v b="$m2" -v c="$m3" -v d="$m4" -v e="$m5" -v f="$m6" 'BEGIN {
        printf "%s medians: lat median %.3f vs %.3f us (x%.2f), lat avg %.3f vs %.3f us (x%.2f), bw %.0f vs %.0f MB/s (x%.2f)\n",
            t, c, a, c / a, d, b, d / b, e, f, e / f }'
done
