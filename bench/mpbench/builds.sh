#!/bin/bash
# builds.sh - before/after in one run: the same libpvm3am configurations
# from several builds, and raw sockets, alternated round by round in one
# private VM, so that a change is measured against the build before it
# under the same load (docs/performance.md, "Reading the figures").
#   builds.sh [--hosts] [--rounds N] [--sizes LIST] [--tests LIST]
#             [--configs LIST] [--out DIR] NAME=BUILDDIR... [-- mpbench options]
# Each NAME=BUILDDIR runs BUILDDIR/bench/mpbench/mpbench_am (its rpath finds
# that build's libraries) for every configuration (default am-tcp,am-udp;
# any am-* that run.sh takes); raw is this build's rawbench.  --hosts: two
# netvm hosts as in run.sh (as root).  Points as run.sh's: -r 3 -w 5
# -i 1000 -t 0.2, the psend variant.  Prints, per test, size and
# configuration, the median over the rounds of each build's MB/s (or us)
# and of its per-round ratio to the first build and to raw; with --hosts
# also what node2 sent back per round (TCP segments, UDP datagrams:
# nstat in its namespace), the receiver's side of a stream.
#   builds.sh --hosts --rounds 7 --sizes 65536,1048576 main=/tmp/main tcp5=.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/bench.sh"
bench_tag=builds
B=$(bench_dir bench/mpbench)
OUTDIR=$top_builddir/builds-out ROUNDS=5 REPS=3
CONFIGS="am-tcp am-udp" SIZES=65536,1048576,4194304 TESTS=bandwidth
hosts= builds=() extra=()
bench_usage="[--hosts] [--rounds N] [--sizes LIST] [--tests LIST] [--configs LIST] [--out DIR] NAME=BUILDDIR... [-- mpbench options]"
driver_opt() {
    case $1 in
    --hosts) hosts=1 bench_used=1 ;;
    --sizes) SIZES=$2 ;;
    --tests) TESTS=$2 ;;
    --) shift; extra=("$@"); bench_used=$(($# + 1)) ;;
    *=*) builds+=("$1") bench_used=1 ;;
    *) bench_used=0 ;;
    esac
}
bench_args "$@"
[ ${#builds[@]} -ge 1 ] || { echo "usage: builds.sh $bench_usage" >&2; exit 2; }
for b in "${builds[@]}"; do
    d=${b#*=}
    [ -x "$d/bench/mpbench/mpbench_am" ] || { echo "builds.sh: $d/bench/mpbench/mpbench_am not built" >&2; exit 2; }
done
bench_need rawbench mpbench_stock
bench_outdir
if [ -n "$hosts" ]; then
    bench_vm 2
    MPBENCH_HOST=$(nvm_name 2); export MPBENCH_HOST
    RAW_NS=(-N "/run/netns/$(nvm_ns 2):$(nvm_addr 1):$(nvm_addr 2)")
else
    bench_vm ""
    RAW_NS=()
fi
common=(-r "$REPS" -w 5 -i 1000 -t 0.2 -s "$SIZES")
rawt=$(echo "$TESTS" | sed 's/latency/tcp_latency,udp_latency/; s/bandwidth/tcp_bandwidth,udp_bandwidth/')

# What node2 has sent back so far: "TcpOutSegs=N UdpOutDatagrams=N".
sent_back() {
    [ -n "$hosts" ] || return 0
    ip netns exec "$(nvm_ns 2)" nstat -az TcpOutSegs UdpOutDatagrams 2>/dev/null |
        awk '/^(Tcp|Udp)/ { printf "%s=%s ", $1, $2 }'
}

# One run: NAME CFG K, its .dat files in rounds/NAME/CFG/rK.
run_one() {
    local name=$1 cfg=$2 k=$3 dir=$OUTDIR/rounds/$1/$2/r$3 am before
    mkdir -p "$dir"
    before=$(sent_back)
    if [ "$name" = raw ]; then
        on1 timeout 300 "$B/rawbench" "${RAW_NS[@]}" "${common[@]}" -T "$rawt" -o "$dir" > "$dir/table.txt"
    else
        am=$(for b in "${builds[@]}"; do [ "${b%%=*}" = "$name" ] && echo "${b#*=}"; done)
        bench_cfg "$cfg" 300 "$B/mpbench_stock" "$am/bench/mpbench/mpbench_am" \
            "${common[@]}" -T "$TESTS" -V psend -o "$dir" "${extra[@]}" > "$dir/table.txt"
    fi || { say "$name $cfg round $k FAILED"; echo "$name $cfg" >> "$OUTDIR/failed"; }
    echo "$name $cfg r$k $before/ $(sent_back)" >> "$OUTDIR/sentback.txt"
}

for k in $(seq "$ROUNDS"); do
    for b in "${builds[@]}"; do
        for cfg in $CONFIGS; do
            say "round $k/$ROUNDS, ${b%%=*} $cfg"
            run_one "${b%%=*}" "$cfg" "$k"
        done
    done
    say "round $k/$ROUNDS, raw"
    run_one raw raw "$k"
done
vm_atexit
trap - EXIT

# "name cfg test round size value" for every point, then the medians.
for f in "$OUTDIR"/rounds/*/*/r*/*.dat; do
    r=${f%/*}; c=${r%/*}; n=${c%/*}
    t=$(basename "$f" .dat)
    awk -v n="${n##*/}" -v c="${c##*/}" -v r="${r##*/}" -v t="${t%_psend}" \
        '{ print n, c, t, r, $1, $2 }' "$f"
done > "$OUTDIR/points.txt"
first=${builds[0]%%=*}
awk -v first="$first" '
function med(list,   a, n, i, j, x) {
    n = split(list, a, " ")
    for (i = 2; i <= n; i++) { x = a[i]; for (j = i - 1; j >= 1 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
{ v[$1 " " $2 " " $3 " " $5 " " $4] = $6; key[$1 " " $2 " " $3 " " $5] = 1 }
END {
    for (k in key) {
        split(k, p, " ")
        if (p[1] == "raw") continue
        proto = p[2]; sub(/^am-/, "", proto); sub(/@.*/, "", proto)
        rawk = "raw raw " proto "_" p[3] " " p[4]
        firstk = first " " p[2] " " p[3] " " p[4]
        vals = ""; rf = ""; rr = ""
        for (kk in v) {
            if (index(kk, k " ") != 1) continue
            rd = substr(kk, length(k) + 2)
            vals = vals " " v[kk]
            if ((firstk " " rd) in v) rf = rf " " v[kk] / v[firstk " " rd]
            if ((rawk " " rd) in v) rr = rr " " v[kk] / v[rawk " " rd]
        }
        printf "%-10s %8s %-8s %-12s %10.1f", p[3], p[4], p[1], p[2], med(vals)
        printf "  /%s %s", first, rf == "" ? "-" : sprintf("%.3f", med(rf))
        printf "  /raw %s\n", rr == "" ? "-" : sprintf("%.3f", med(rr))
    }
}' "$OUTDIR/points.txt" | sort -k1,1 -k2,2n -k4,4 -k3,3 > "$OUTDIR/summary.txt"
for t in $(echo "$rawt" | tr , ' '); do
    awk -v t="$t" '$3 == t { print $5, $6 }' "$OUTDIR/points.txt" | sort -n |
        awk -v t="$t" '{ s[$1] = s[$1] " " $2 } END { for (k in s) print t, k, "raw, every round, sorted:" s[k] }'
done | sort -k2,2n >> "$OUTDIR/summary.txt"
if [ -n "$hosts" ]; then
    echo "# sent back by node2, per build, configuration and round" >> "$OUTDIR/summary.txt"
    awk '{
        split($0, h, "/"); nb = split(h[1], b, " "); na = split(h[2], a, " ")
        out = $1 " " $2 " " $3
        for (i = 4; i <= nb; i++) { split(b[i], x, "="); was[x[1]] = x[2] }
        for (i = 1; i <= na; i++) { split(a[i], x, "="); out = out " " x[1] "=" (x[2] - was[x[1]]) }
        print out
    }' "$OUTDIR/sentback.txt" >> "$OUTDIR/summary.txt"
fi
echo "# test size build config median  /first-build ratio  /raw ratio (medians of per-round ratios); $(uptime)"
cat "$OUTDIR/summary.txt"
[ -s "$OUTDIR/failed" ] && { say "FAILED: $(sort -u "$OUTDIR/failed" | paste -sd' ')"; exit 1; }
exit 0
