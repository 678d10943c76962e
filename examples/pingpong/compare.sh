#!/bin/sh
# Daemon-route ping-pong: the same source built against stock libpvm3 and
# libpvm3am, run in one private VM, interleaved, tasks pinned to cores 0/1.
# Prints a table with latency and bandwidth ratios (ours / stock).
#   compare.sh [max-bytes] [seconds-per-size] [rounds]
set -u
B=${top_builddir:-.}/examples/pingpong
MAX=${1:-4194304} SECS=${2:-0.3} ROUNDS=${3:-3}
. "${top_srcdir:-.}/tests/lib/pvmvm.sh"
vm_start || exit 1
OUT=$(mktemp -d)
vm_cleanup() { rm -rf "$OUT"; }
for r in $(seq "$ROUNDS"); do
    for lib in stock am; do
        echo "round $r/$ROUNDS: $lib" >&2
        timeout 300 "$B/pingpong_$lib" MASTER "$B/pingpong_$lib" "$MAX" "$SECS" >> "$OUT/$lib" || exit 1
    done
done
# median of the rounds per (mode, size)
med() { sort -k1,1 -k2,2n -k3,3n "$1" | awk '
    { key=$1" "$2; v[key]=v[key]" "$3; n[key]++ ; if (!(key in seen)) { seen[key]=1; order[++k]=key } }
    END { for (i=1;i<=k;i++) { split(v[order[i]], a, " "); m=a[int((n[order[i]]+1)/2)]; print order[i], m } }'; }
med "$OUT/stock" > "$OUT/s"; med "$OUT/am" > "$OUT/a"
echo "daemon route, half round trip (median of $ROUNDS rounds), cores 0/1"
printf '%-7s %9s %12s %12s %10s %10s %9s\n' mode bytes stock_us ours_us stock_MB/s ours_MB/s speedup
join -j 1 <(awk '{print $1"_"$2, $3}' "$OUT/s") <(awk '{print $1"_"$2, $3}' "$OUT/a") | tr '_' ' ' |
    sort -k1,1 -k2,2n | awk '{ printf "%-7s %9d %12.2f %12.2f %10.1f %10.1f %8.2fx\n", $1, $2, $3, $4, $2/$3, $2/$4, $3/$4 }'
